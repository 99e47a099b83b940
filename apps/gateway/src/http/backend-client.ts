import { Inject, Injectable, Logger } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@rollout/platform/logging';
import { ClientMetrics } from '@rollout/platform/metrics';
import { NatsRpcClient } from '@rollout/platform/nats';
import { Config, GATEWAY_CONFIG } from '../config';
import { currentHttpClient } from './client-context';
import { DeprecationPolicy } from './deprecations';
import { PageTokens } from './page-tokens';

/**
 * The gateway's one way to call a service: NATS request/reply with the configured deadline and
 * the caller's request id; failures arrive as StatusErrors (UNAVAILABLE when nobody serves the
 * subject). On the way it forwards the HTTP client's features (`Client-Features`), reports or
 * refuses deprecated request fields, signs page tokens out and checks them back in, and sends the
 * caller as a signed actor assertion (with BUS_SIGNING_KEY), which services check before acting.
 */
@Injectable()
export class BackendClient {
  private readonly deprecations: DeprecationPolicy;
  private readonly pageTokens: PageTokens;

  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: Config,
    metrics: ClientMetrics,
  ) {
    this.deprecations = new DeprecationPolicy(metrics);
    this.pageTokens = new PageTokens(config.PAGE_TOKEN_SECRET);
    if (!config.BUS_SIGNING_KEY) {
      new Logger('BackendClient').warn(
        'BUS_SIGNING_KEY is not set: calls to services carry no actor assertion, so only services without BUS_VERIFY_KEYS serve them (development only)',
      );
    }
  }

  async call<T>(subject: string, data: unknown, requestId?: string): Promise<T> {
    this.deprecations.check(subject, data);
    const client = currentHttpClient();
    const reply = await this.rpc.request<T>(subject, this.pageTokens.openRequest(data), {
      timeoutMs: this.config.RPC_TIMEOUT_MS,
      headers: requestId ? { [REQUEST_ID_HEADER]: requestId } : undefined,
      features: client?.features,
      actor: client?.actor && { ...client.actor, ...(requestId ? { requestId } : {}) },
    });
    return this.pageTokens.sealReply(reply);
  }
}
