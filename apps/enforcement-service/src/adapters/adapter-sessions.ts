import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import {
  AdapterCalls,
  AdapterFilter,
  AdapterFilterConfig,
  AdapterInstance,
  AdapterStatus,
  CheckCache,
  CheckResult,
  Clock,
  EnforcementConfig,
  QuotaRequest,
  QuotaResult,
  ReportRecord,
  sameAdapterFilter,
} from '@rollout/domain/enforcement';
import { CLOCK } from '@rollout/platform/service-kit';
import { EnforcementConfigSource } from '../enforcement-config';
import { EnforcementMetrics } from '../chain/enforcement-metrics';
import { AdapterClient } from './adapter-client';
import { NO_STATUS, Target, describeStatus, handshake, lostSession } from './adapter-handshake';
import { SessionCloses } from './session-closes.job';

/** A handler without a session tries again at most this often (an adapter that was down comes back). */
const RETRY_INTERVAL_MS = 5_000;
/**
 * Handle* calls wait this much longer than the filter's timeout_ms: the chain's own timer is
 * the one that gives up (and names the filter), the NATS request is cleaned up just after.
 */
const CALL_SLACK_MS = 100;

interface Handler {
  config: AdapterFilterConfig;
  filter: AdapterFilter;
  cache: CheckCache;
  target?: Target;
  /** Why the handler gets no requests (Validate or CreateSession refused, adapter down). */
  failure?: string;
  retryAt: number;
  opening?: Promise<void>;
  closed: boolean;
}

/** Thrown to the chain when a handler has no valid session: the failure policy applies. */
export class AdapterNotReadyError extends Error {
  override readonly name = 'AdapterNotReadyError';
}

/**
 * The chain's adapter handlers and their sessions (Mixer's model), and the filters' adapter port.
 * A handler opens at boot or when a reload changes it, and a refused one gets no requests (its
 * failure policy applies) until a later attempt succeeds; an old session closes once its
 * replacement is in place, and every session at shutdown.
 */
@Injectable()
export class AdapterSessions
  implements AdapterCalls, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('AdapterSessions');
  private handlers = new Map<string, Handler>();
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: AdapterClient,
    private readonly closes: SessionCloses,
    private readonly source: EnforcementConfigSource,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.source.onChange((config) => this.apply(config));
    await this.apply(this.source.current);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.applying;
    const all = [...this.handlers.values()];
    this.handlers = new Map();
    await Promise.all(all.map((h) => this.close(h)));
  }

  /** The filter of a handler; a config the sessions do not hold (yet) gets a filter with no session. */
  filterFor(config: AdapterFilterConfig): AdapterFilter {
    const handler = this.handlers.get(config.name);
    if (handler && sameAdapterFilter(handler.config, config)) return handler.filter;
    return this.newHandler(config).filter;
  }

  /** Brings the handlers in line with `config`; one apply at a time. */
  apply(config: EnforcementConfig): Promise<void> {
    this.applying = this.applying.then(() => this.applyNow(config));
    return this.applying;
  }

  private async applyNow(config: EnforcementConfig): Promise<void> {
    const wanted = config.enabledFilters
      .map((name) => config.adapters[name])
      .filter((c): c is AdapterFilterConfig => c !== undefined);
    const next = new Map<string, Handler>();
    const opening: Promise<void>[] = [];
    for (const c of wanted) {
      const existing = this.handlers.get(c.name);
      if (existing && sameAdapterFilter(existing.config, c)) {
        next.set(c.name, existing);
        continue;
      }
      const handler = this.newHandler(c);
      next.set(c.name, handler);
      opening.push(this.open(handler));
    }
    await Promise.all(opening);
    const old = [...this.handlers.values()].filter((h) => next.get(h.config.name) !== h);
    this.handlers = next;
    await Promise.all(old.map((h) => this.close(h)));
  }

  private newHandler(config: AdapterFilterConfig): Handler {
    const cache = new CheckCache({ now: () => this.clock.now().getTime() });
    const filter = new AdapterFilter(
      { name: config.name, adapter: config.adapter, templates: config.templates },
      this,
      this.clock,
      cache,
      this.metrics,
    );
    return { config, filter, cache, retryAt: 0, closed: false };
  }

  /** Info, Validate, CreateSession (when session based). Never throws: a failure is kept on the handler. */
  private open(handler: Handler): Promise<void> {
    if (handler.opening) return handler.opening;
    handler.opening = this.establish(handler).finally(() => (handler.opening = undefined));
    return handler.opening;
  }

  private async establish(handler: Handler): Promise<void> {
    const { config } = handler;
    const refuse = (why: string) => {
      handler.target = undefined;
      handler.failure = `Adapter filter ${config.name} (adapter ${config.adapter}) has no session: ${why}`;
      handler.retryAt = this.clock.now().getTime() + RETRY_INTERVAL_MS;
      this.metrics.sessionEvent(config.name, 'refused');
      this.logger.warn(
        { handler: config.name, adapter: config.adapter, reason: why },
        'adapter handler gets no requests',
      );
    };
    try {
      const opened = await handshake(this.client, config);
      if ('refused' in opened) return refuse(opened.refused);
      handler.target = opened;
      if (handler.closed) {
        // Replaced or shut down while opening: give the new session straight back.
        await this.closeSession(handler);
        return;
      }
      handler.failure = undefined;
      handler.cache.clear();
      this.metrics.sessionEvent(config.name, 'opened');
      this.logger.log(
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

  private async close(handler: Handler): Promise<void> {
    handler.closed = true;
    await handler.opening;
    await this.closeSession(handler);
  }

  private async closeSession(handler: Handler): Promise<void> {
    const target = handler.target;
    handler.target = undefined;
    if (!target || !('sessionId' in target)) return;
    await this.closes.close(handler.config.name, handler.config.adapter, target.sessionId);
    this.metrics.sessionEvent(handler.config.name, 'closed');
  }

  /** The handler's target, trying to open a session again when the last attempt is old enough. */
  private async target(name: string): Promise<{ handler: Handler; target: Target }> {
    const handler = this.handlers.get(name);
    if (!handler) throw new AdapterNotReadyError(`Adapter filter ${name} is not configured.`);
    if (!handler.target && !handler.closed && this.clock.now().getTime() >= handler.retryAt)
      await this.open(handler);
    if (!handler.target)
      throw new AdapterNotReadyError(handler.failure ?? `Adapter filter ${name} has no session.`);
    return { handler, target: handler.target };
  }

  async check(name: string, instance: AdapterInstance): Promise<CheckResult> {
    return this.handle<CheckResult>(name, 'handleCheck', { instance });
  }

  async quota(
    name: string,
    instance: AdapterInstance,
    quotaRequest: QuotaRequest,
  ): Promise<QuotaResult> {
    return this.handle<QuotaResult>(name, 'handleQuota', { instance, quotaRequest });
  }

  async report(name: string, instances: ReportRecord[]): Promise<AdapterStatus> {
    const reply = await this.handle<{ status?: AdapterStatus }>(name, 'handleReport', {
      instances,
    });
    return reply.status ?? NO_STATUS;
  }

  private async handle<T extends { status?: AdapterStatus }>(
    name: string,
    method: 'handleCheck' | 'handleQuota' | 'handleReport',
    body: object,
  ): Promise<T> {
    const { handler, target } = await this.target(name);
    const reply = await this.client.call<T>(
      handler.config.adapter,
      method,
      { ...target, ...body },
      handler.config.timeoutMs + CALL_SLACK_MS,
    );
    if ('sessionId' in target && lostSession(reply.status)) {
      // The adapter no longer knows the session (it lost its state, or it was closed under a
      // call in flight): this call fails by policy, and the next one opens a session again.
      if (handler.target === target) {
        handler.target = undefined;
        handler.failure = `Adapter ${handler.config.adapter} no longer knows session ${target.sessionId}: ${describeStatus(reply.status)}`;
        handler.retryAt = 0;
      }
      throw new AdapterNotReadyError(
        `Adapter ${handler.config.adapter} no longer knows session ${target.sessionId}.`,
      );
    }
    return reply;
  }
}
