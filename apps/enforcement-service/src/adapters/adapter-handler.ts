import { Logger } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import {
  AdapterCalls,
  AdapterFilter,
  AdapterFilterConfig,
  CheckCache,
} from '@rollout/domain/enforcement';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { AdapterClient } from './adapter-client';
import { Target, handshake } from './adapter-handshake';
import { SessionCloses } from './session-closes.job';

/** A handler without a session tries again at most this often (an adapter that was down comes back). */
export const RETRY_INTERVAL_MS = 5_000;

export interface HandlerDeps {
  client: AdapterClient;
  closes: SessionCloses;
  metrics: EnforcementMetrics;
  clock: Clock;
  calls: AdapterCalls;
  logger: Logger;
}

/** One adapter filter's config and its session with the adapter, if one is open. */
export class AdapterHandler {
  readonly filter: AdapterFilter;
  readonly cache: CheckCache;
  target?: Target;
  failure?: string;
  retryAt = 0;
  closed = false;
  private opening?: Promise<void>;

  constructor(
    readonly config: AdapterFilterConfig,
    private readonly deps: HandlerDeps,
  ) {
    this.cache = new CheckCache({ now: () => deps.clock.now().getTime() });
    this.filter = new AdapterFilter(
      { name: config.name, adapter: config.adapter, templates: config.templates },
      deps.calls,
      deps.clock,
      this.cache,
      deps.metrics,
    );
  }

  /** Never throws: a failure is kept on the handler. */
  open(): Promise<void> {
    if (this.opening) return this.opening;
    this.opening = this.establish().finally(() => (this.opening = undefined));
    return this.opening;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.opening;
    await this.closeSession();
  }

  /** The adapter lost the session: the next call opens a new one. */
  lose(target: Target, failure: string): void {
    if (this.target !== target) return;
    this.target = undefined;
    this.failure = failure;
    this.retryAt = 0;
  }

  private async establish(): Promise<void> {
    const { config, deps } = this;
    const refuse = (why: string) => {
      this.target = undefined;
      this.failure = `Adapter filter ${config.name} (adapter ${config.adapter}) has no session: ${why}`;
      this.retryAt = deps.clock.now().getTime() + RETRY_INTERVAL_MS;
      deps.metrics.sessionEvent(config.name, 'refused');
      deps.logger.warn(
        { handler: config.name, adapter: config.adapter, reason: why },
        'adapter handler gets no requests',
      );
    };
    try {
      const opened = await handshake(deps.client, config);
      if ('refused' in opened) return refuse(opened.refused);
      this.target = opened;
      if (this.closed) {
        // Replaced or shut down while opening: give the new session straight back.
        await this.closeSession();
        return;
      }
      this.failure = undefined;
      this.cache.clear();
      deps.metrics.sessionEvent(config.name, 'opened');
      deps.logger.log(
        {
          handler: config.name,
          adapter: config.adapter,
          session: 'sessionId' in opened ? opened.sessionId : null,
        },
        'adapter handler ready',
      );
    } catch (error) {
      refuse(error instanceof Error ? error.message : String(error));
    }
  }

  private async closeSession(): Promise<void> {
    const target = this.target;
    this.target = undefined;
    if (!target || !('sessionId' in target)) return;
    await this.deps.closes.close(this.config.name, this.config.adapter, target.sessionId);
    this.deps.metrics.sessionEvent(this.config.name, 'closed');
  }
}
