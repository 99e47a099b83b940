import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS,
  PREVIEW_SUBJECTS,
  STATE_AFTER_HEADER,
  StatePosition,
  formatStatePosition,
} from '@rollout/contracts';
import { REQUEST_ID_HEADER } from '@rollout/platform/logging';
import { ClientMetrics } from '@rollout/platform/metrics';
import { NatsRpcClient } from '@rollout/platform/nats';
import { Config, GATEWAY_CONFIG } from '../config';
import { currentHttpClient } from './client-context';
import { DeprecationPolicy } from './deprecations';
import { PageTokens } from './page-tokens';

/**
 * Reads of the state the experiment-service relays carry `State-After` (its log's position), so
 * they see every change answered before them (docs/api.md, "Read your own writes").
 */
const READS_OF_RELAYED_STATE: ReadonlySet<string> = new Set([
  PREVIEW_SUBJECTS.backtest,
  PREVIEW_SUBJECTS.previewReport,
  PREVIEW_SUBJECTS.previewFlows,
  PREVIEW_SUBJECTS.previewLogs,
  PREVIEW_SUBJECTS.deadLetters,
]);

/**
 * The one way to call a service. It forwards `Client-Features`, polices deprecated fields, seals
 * page tokens, signs the caller as an actor assertion, and makes relayed-state reads see the caller's writes.
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
    const headers: Record<string, string> = requestId ? { [REQUEST_ID_HEADER]: requestId } : {};
    const actor = client?.actor && { ...client.actor, ...(requestId ? { requestId } : {}) };
    const send = <R>(to: string, body: unknown) =>
      this.rpc.request<R>(to, body, {
        timeoutMs: this.config.RPC_TIMEOUT_MS,
        headers,
        features: client?.features,
        actor,
      });
    if (READS_OF_RELAYED_STATE.has(subject)) {
      // Asked now, after every command this client was answered: the position covers them all.
      const position = await send<StatePosition>(EXPERIMENT_SUBJECTS.statePosition, {});
      headers[STATE_AFTER_HEADER] = formatStatePosition(position);
    }
    const reply = await send<T>(subject, this.pageTokens.openRequest(data));
    return this.pageTokens.sealReply(reply);
  }
}
