import { EnforcementContext, EnforcementFilter, FilterMode, Hook, LeaseRequest, isDenial, isFailOpen } from './model';

/**
 * What one filter did for one hook.
 * - `would_deny`: a dryrun filter denied; the request still passes.
 * - `fail_open`: the filter could not decide and was configured to allow on error.
 * - `error`: the filter threw (a check hook counts it as a denial; on_end only records it).
 */
export type StepResult = 'allow' | 'deny' | 'would_deny' | 'fail_open' | 'error';

export interface ChainStep {
  filter: string;
  mode: FilterMode;
  result: StepResult;
  message?: string;
}

export interface ChainDecision {
  hook: Hook;
  allowed: boolean;
  /** Present when refused: the first enforcing filter that denied, and its message for the user. */
  denial?: { filter: string; message: string };
  /** True when the project is exempted: no filter ran. */
  exempted: boolean;
  steps: ChainStep[];
}

/** Receives every step as it happens (logging, metrics). Must not throw; errors are swallowed. */
export interface ChainObserver {
  onStep(hook: Hook, step: ChainStep, context: EnforcementContext): void;
}

export interface ConfiguredFilter {
  filter: EnforcementFilter;
  mode: FilterMode;
}

/**
 * Runs the configured filters in order. The first denial of an enforcing filter stops the chain;
 * dryrun denials are recorded as `would_deny` and the chain goes on. Exempted projects skip every
 * filter, on_end included.
 */
export class EnforcementChain {
  private readonly exempted: ReadonlySet<string>;

  constructor(
    private readonly filters: readonly ConfiguredFilter[],
    exemptedProjects: readonly string[],
    private readonly observer?: ChainObserver,
  ) {
    this.exempted = new Set(exemptedProjects);
  }

  get filterNames(): string[] {
    return this.filters.map((f) => f.filter.name);
  }

  checkCreate(context: EnforcementContext, lease: LeaseRequest): Promise<ChainDecision> {
    return this.runChecks('check_create', context, (f) => f.checkCreate(context, lease));
  }

  checkUpdate(context: EnforcementContext, current: LeaseRequest, lease: LeaseRequest): Promise<ChainDecision> {
    return this.runChecks('check_update', context, (f) => f.checkUpdate(context, current, lease));
  }

  /**
   * A notification: every filter is told, failures are recorded and never propagate, and the
   * returned decision is always `allowed`. Calling it once per lease is the caller's duty.
   */
  async onEnd(context: EnforcementContext, lease: LeaseRequest): Promise<ChainDecision> {
    const decision: ChainDecision = { hook: 'on_end', allowed: true, exempted: this.isExempted(context), steps: [] };
    if (decision.exempted) return decision;
    for (const { filter, mode } of this.filters) {
      let step: ChainStep;
      try {
        await filter.onEnd(context, lease);
        step = { filter: filter.name, mode, result: 'allow' };
      } catch (error) {
        step = { filter: filter.name, mode, result: 'error', message: errorMessage(error) };
      }
      this.record(decision, step, context);
    }
    return decision;
  }

  private isExempted(context: EnforcementContext): boolean {
    return this.exempted.has(context.projectId);
  }

  private async runChecks(
    hook: Hook,
    context: EnforcementContext,
    run: (filter: EnforcementFilter) => ReturnType<EnforcementFilter['checkCreate']>,
  ): Promise<ChainDecision> {
    const decision: ChainDecision = { hook, allowed: true, exempted: this.isExempted(context), steps: [] };
    if (decision.exempted) return decision;
    for (const { filter, mode } of this.filters) {
      let step: ChainStep;
      try {
        const result = await run(filter);
        if (isDenial(result)) {
          step = { filter: filter.name, mode, result: mode === 'dryrun' ? 'would_deny' : 'deny', message: result.message };
        } else if (isFailOpen(result)) {
          step = { filter: filter.name, mode, result: 'fail_open', message: result.failOpen };
        } else {
          step = { filter: filter.name, mode, result: 'allow' };
        }
      } catch (error) {
        // A filter that breaks must not silently admit: it denies (unless in dryrun).
        step = { filter: filter.name, mode, result: mode === 'dryrun' ? 'would_deny' : 'error', message: errorMessage(error) };
      }
      this.record(decision, step, context);
      if (step.result === 'deny' || step.result === 'error') {
        decision.allowed = false;
        decision.denial = {
          filter: filter.name,
          message: step.result === 'deny' ? (step.message ?? '') : `Enforcement filter ${filter.name} failed.`,
        };
        break;
      }
    }
    return decision;
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
