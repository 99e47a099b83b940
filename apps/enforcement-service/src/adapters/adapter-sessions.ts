import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import {
  AdapterCalls,
  AdapterFilter,
  AdapterFilterConfig,
  AdapterInstance,
  AdapterStatus,
  CheckResult,
  EnforcementConfig,
  QuotaRequest,
  QuotaResult,
  ReportRecord,
  sameAdapterFilter,
} from '@rollout/domain/enforcement';
import { CLOCK } from '@rollout/platform/service-kit';
import { EnforcementConfigSource } from '../enforcement-config';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { AdapterClient } from './adapter-client';
import { AdapterHandler, RETRY_INTERVAL_MS } from './adapter-handler';
import { NO_STATUS, Target, describeStatus, lostSession } from './adapter-handshake';
import { SessionCloses } from './session-closes.job';

/** The chain's own timer is the one that gives up (and names the filter); the NATS request is cleaned up just after. */
const CALL_SLACK_MS = 100;

export class AdapterNotReadyError extends Error {
  override readonly name = 'AdapterNotReadyError';
}

/**
 * Mixer's model. A changed handler is make before break: while its replacement cannot open
 * (adapter down, or refusing the new config) the old session keeps serving and the replacement is
 * retried every 5 s; the old session closes once the replacement is open.
 */
@Injectable()
export class AdapterSessions
  implements AdapterCalls, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('AdapterSessions');
  private handlers = new Map<string, AdapterHandler>();
  private replacements = new Map<string, AdapterHandler>();
  private applying: Promise<void> = Promise.resolve();
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;

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
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.applying;
    const all = [...this.handlers.values(), ...this.replacements.values()];
    this.handlers = new Map();
    this.replacements = new Map();
    await Promise.all(all.map((h) => h.close()));
  }

  /** A config the sessions do not hold (yet) gets a filter with no session. */
  filterFor(config: AdapterFilterConfig): AdapterFilter {
    const handler = this.handlers.get(config.name);
    if (handler && sameAdapterFilter(handler.config, config)) return handler.filter;
    const waiting = this.replacements.get(config.name);
    // The old handler serves until its replacement opens, its check cache with it.
    if (handler && waiting && sameAdapterFilter(waiting.config, config)) return handler.filter;
    return this.newHandler(config).filter;
  }

  apply(config: EnforcementConfig): Promise<void> {
    return this.serialized(() => this.applyNow(config));
  }

  private serialized(step: () => Promise<void>): Promise<void> {
    this.applying = this.applying.then(step);
    return this.applying;
  }

  private async applyNow(config: EnforcementConfig): Promise<void> {
    const wanted = config.enabledFilters
      .map((name) => config.adapters[name])
      .filter((c): c is AdapterFilterConfig => c !== undefined);
    const next = new Map<string, AdapterHandler>();
    const waiting = new Map<string, AdapterHandler>();
    const opening: AdapterHandler[] = [];
    for (const c of wanted) {
      const serving = this.handlers.get(c.name);
      if (serving && sameAdapterFilter(serving.config, c)) {
        next.set(c.name, serving);
        continue;
      }
      const pending = this.replacements.get(c.name);
      opening.push(pending && sameAdapterFilter(pending.config, c) ? pending : this.newHandler(c));
    }
    await Promise.all(opening.map((h) => h.open()));
    for (const handler of opening) {
      const serving = this.handlers.get(handler.config.name);
      if (handler.target || !serving?.target) next.set(handler.config.name, handler);
      else {
        next.set(handler.config.name, serving);
        waiting.set(handler.config.name, handler);
      }
    }
    const kept = new Set([...next.values(), ...waiting.values()]);
    const old = [...this.handlers.values(), ...this.replacements.values()].filter(
      (h) => !kept.has(h),
    );
    this.handlers = next;
    this.replacements = waiting;
    await Promise.all(old.map((h) => h.close()));
    this.retryReplacementsLater();
  }

  private async promoteNow(): Promise<void> {
    const waiting = [...this.replacements.values()];
    await Promise.all(waiting.map((h) => h.open()));
    const old: AdapterHandler[] = [];
    for (const handler of waiting) {
      const { name } = handler.config;
      if (!handler.target || this.replacements.get(name) !== handler) continue;
      this.replacements.delete(name);
      const serving = this.handlers.get(name);
      this.handlers.set(name, handler);
      if (serving) old.push(serving);
    }
    await Promise.all(old.map((h) => h.close()));
    this.retryReplacementsLater();
  }

  /** Without waiting for a request: the old session must not stay for good. */
  private retryReplacementsLater(): void {
    if (this.stopped || this.retryTimer || this.replacements.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void this.serialized(() => this.promoteNow());
    }, RETRY_INTERVAL_MS);
    this.retryTimer.unref();
  }

  private newHandler(config: AdapterFilterConfig): AdapterHandler {
    return new AdapterHandler(config, {
      client: this.client,
      closes: this.closes,
      metrics: this.metrics,
      clock: this.clock,
      calls: this,
      logger: this.logger,
    });
  }

  private async target(name: string): Promise<{ handler: AdapterHandler; target: Target }> {
    let handler = this.handlers.get(name);
    if (!handler) throw new AdapterNotReadyError(`Adapter filter ${name} is not configured.`);
    const now = this.clock.now().getTime();
    const waiting = this.replacements.get(name);
    if (!handler.target && waiting) {
      // The old session was lost while its replacement waits: the replacement is what to open.
      if (now >= waiting.retryAt) await this.serialized(() => this.promoteNow());
      handler = this.handlers.get(name) ?? handler;
    } else if (!handler.target && !handler.closed && now >= handler.retryAt) await handler.open();
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
      // The adapter lost the session (its state, or closed under a call in flight): the next call opens a new one.
      handler.lose(
        target,
        `Adapter ${handler.config.adapter} no longer knows session ${target.sessionId}: ${describeStatus(reply.status)}`,
      );
      throw new AdapterNotReadyError(
        `Adapter ${handler.config.adapter} no longer knows session ${target.sessionId}.`,
      );
    }
    return reply;
  }
}
