import {
  EnforcementContext,
  EnforcementFilter,
  FailurePolicy,
  FilterMode,
  FilterResult,
  Hook,
  LeaseRequest,
  isDenial,
  isFailOpen,
} from './model';
import type { ChainDecision, ChainObserver, ChainStep } from './chain-decision';

export interface ConfiguredFilter {
  filter: EnforcementFilter;
  mode: FilterMode;
  /** Unset: the filter bounds itself. Remote filters (adapters over NATS) set it so a check never waits longer on them. */
  timeoutMs?: number;
  /** `closed` (default) refuses when the filter throws or times out; `open` passes and records `fail_open`. */
  failurePolicy?: FailurePolicy;
}

/** Injected so tests need no real waiting. */
export type ScheduleTimeout = (ms: number, fire: () => void) => () => void;

export const realTimeout: ScheduleTimeout = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export interface ChainOptions {
  observer?: ChainObserver;
  schedule?: ScheduleTimeout;
}

export class FilterTimeoutError extends Error {
  override readonly name = 'FilterTimeoutError';
  constructor(filter: string, ms: number) {
    super(`Enforcement filter ${filter} did not answer within ${ms} ms.`);
  }
}

/** Dryrun denials are recorded as `would_deny` and the chain goes on; exempted projects skip every filter, on_end included. */
export class EnforcementChain {
  private readonly exempted: ReadonlySet<string>;
  private readonly observer?: ChainObserver;
  private readonly schedule: ScheduleTimeout;

  constructor(
    private readonly filters: readonly ConfiguredFilter[],
    exemptedProjects: readonly string[],
    options: ChainOptions | ChainObserver = {},
  ) {
    this.exempted = new Set(exemptedProjects);
    const opts: ChainOptions = 'onStep' in options ? { observer: options } : options;
    this.observer = opts.observer;
    this.schedule = opts.schedule ?? realTimeout;
  }

  get filterNames(): string[] {
    return this.filters.map((f) => f.filter.name);
  }

  isExempted(projectId: string): boolean {
    return this.exempted.has(projectId);
  }

  checkCreate(
    context: EnforcementContext,
    lease: LeaseRequest,
    liveLeases: number,
  ): Promise<ChainDecision> {
    return this.runChecks(
      'check_create',
      context,
      (f) => f.checkCreate(context, lease, liveLeases),
      (f) => f.onAborted?.(context, lease),
    );
  }

  checkUpdate(
    context: EnforcementContext,
    current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<ChainDecision> {
    return this.runChecks(
      'check_update',
      context,
      (f) => f.checkUpdate(context, current, lease),
      (f) => f.onAborted?.(context, lease, current),
    );
  }

  async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    if (this.isExempted(context.projectId)) return;
    await this.tellEach((f) => f.onCreated?.(context, lease));
  }

  async notifyUpdated(
    context: EnforcementContext,
    before: LeaseRequest,
    after: LeaseRequest,
  ): Promise<void> {
    if (this.isExempted(context.projectId)) return;
    await this.tellEach((f) => f.onUpdated?.(context, before, after));
  }

  /** Filters that took something give it back (`onAborted`); the others hear `on_end`. */
  async abortCreate(context: EnforcementContext, lease: LeaseRequest): Promise<ChainDecision> {
    return this.notifyEach(context, (f) =>
      f.onAborted ? f.onAborted(context, lease) : f.onEnd(context, lease),
    );
  }

  /** Failures are recorded as `error` steps and never propagate; redelivery is the caller's duty (the on_end outbox). */
  onEnd(
    context: EnforcementContext,
    lease: LeaseRequest,
    only?: readonly string[],
  ): Promise<ChainDecision> {
    return this.notifyEach(context, (f) => f.onEnd(context, lease), only);
  }

  /** `only`: tell just these filters (a retry of those that failed); filters no longer configured are skipped. */
  private async notifyEach(
    context: EnforcementContext,
    run: (filter: EnforcementFilter) => Promise<void>,
    only?: readonly string[],
  ): Promise<ChainDecision> {
    const decision: ChainDecision = {
      hook: 'on_end',
      allowed: true,
      exempted: this.isExempted(context.projectId),
      steps: [],
    };
    if (decision.exempted) return decision;
    for (const configured of this.filters) {
      if (only && !only.includes(configured.filter.name)) continue;
      const { filter, mode } = configured;
      let step: ChainStep;
      try {
        await this.bounded(configured, () => run(filter));
        step = { filter: filter.name, mode, result: 'allow' };
      } catch (error) {
        step = { filter: filter.name, mode, result: 'error', message: errorMessage(error) };
      }
      this.record(decision, step, context);
    }
    return decision;
  }

  private async runChecks(
    hook: Hook,
    context: EnforcementContext,
    run: (filter: EnforcementFilter) => Promise<FilterResult>,
    abort: (filter: EnforcementFilter) => Promise<void> | undefined,
  ): Promise<ChainDecision> {
    const decision: ChainDecision = {
      hook,
      allowed: true,
      exempted: this.isExempted(context.projectId),
      steps: [],
    };
    if (decision.exempted) return decision;
    for (const configured of this.filters) {
      const { filter, mode } = configured;
      let step: ChainStep;
      // A thrown error's reason is for the operator's log only.
      let denial: NonNullable<ChainDecision['denial']> = {
        filter: filter.name,
        message: `Enforcement filter ${filter.name} failed.`,
        failure: { status: 'PERMISSION_DENIED' },
      };
      try {
        const result = await this.bounded(configured, () => run(filter));
        if (isDenial(result)) {
          const refused = result.failure ? 'error' : 'deny';
          step = {
            filter: filter.name,
            mode,
            result: mode === 'dryrun' ? 'would_deny' : refused,
            message: result.message,
          };
          denial = {
            filter: filter.name,
            message: result.message,
            ...(result.failure ? { failure: result.failure } : {}),
          };
        } else if (isFailOpen(result)) {
          step = { filter: filter.name, mode, result: 'fail_open', message: result.failOpen };
        } else {
          step = { filter: filter.name, mode, result: 'allow' };
        }
      } catch (error) {
        // A filter that breaks must not silently admit: it denies unless its policy is `open`.
        const message = errorMessage(error);
        if (configured.failurePolicy === 'open')
          step = { filter: filter.name, mode, result: 'fail_open', message };
        else
          step = {
            filter: filter.name,
            mode,
            result: mode === 'dryrun' ? 'would_deny' : 'error',
            message,
          };
      }
      this.record(decision, step, context);
      if (step.result === 'deny' || step.result === 'error') {
        decision.allowed = false;
        decision.denial = denial;
        // Filters that allowed before the refusal may have taken something (quota): undo it.
        const allowedBefore = this.filters.filter(
          (_f, i) => i < decision.steps.length - 1 && decision.steps[i].result === 'allow',
        );
        await this.tellEach(abort, allowedBefore);
        break;
      }
    }
    return decision;
  }

  private async tellEach(
    run: (filter: EnforcementFilter) => Promise<void> | undefined,
    filters: readonly ConfiguredFilter[] = this.filters,
  ): Promise<void> {
    for (const configured of filters) {
      try {
        const pending = run(configured.filter);
        if (pending) await this.bounded(configured, () => pending);
      } catch {
        // Best effort: a notification never changes what it follows.
      }
    }
  }

  private bounded<T>(configured: ConfiguredFilter, call: () => Promise<T>): Promise<T> {
    const ms = configured.timeoutMs;
    if (ms === undefined) return call();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const cancel = this.schedule(ms, () => {
        if (settled) return;
        settled = true;
        reject(new FilterTimeoutError(configured.filter.name, ms));
      });
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        cancel();
        fn();
      };
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => settle(() => resolve(value)),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }

  private record(decision: ChainDecision, step: ChainStep, context: EnforcementContext): void {
    decision.steps.push(step);
    try {
      this.observer?.onStep(decision.hook, step, context);
    } catch {
      // Observability must never change a decision.
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
