import { Inject, Injectable } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@rollout/logging';
import { NatsRpcClient } from '@rollout/nats';
import { Config, GATEWAY_CONFIG } from '../config';

/**
 * The gateway's one way to call a service: NATS request/reply with the configured deadline
 * and the caller's request id. Failures arrive as StatusErrors (UNAVAILABLE when nobody
 * serves the subject, DEADLINE_EXCEEDED when too slow, or the service's own Status).
 */
@Injectable()
export class BackendClient {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: Config,
  ) {}

  call<T>(subject: string, data: unknown, requestId?: string): Promise<T> {
    return this.rpc.request<T>(subject, data, {
      timeoutMs: this.config.RPC_TIMEOUT_MS,
      headers: requestId ? { [REQUEST_ID_HEADER]: requestId } : undefined,
    });
  }
}
