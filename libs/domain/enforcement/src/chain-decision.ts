import type { StatusCode } from '@rollout/contracts';
import type { EnforcementContext, FilterMode, Hook } from './model';

/**
 * `would_deny`: a dryrun filter denied or failed. `error`: the filter threw or timed out with a
 * closed failure policy (a check counts it as a denial; on_end only records it).
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
  /** `failure` when the filter refused because it could not decide, not by its policy. */
  denial?: { filter: string; message: string; failure?: { status: StatusCode } };
  exempted: boolean;
  steps: ChainStep[];
}

/** Must not throw; errors are swallowed. */
export interface ChainObserver {
  onStep(hook: Hook, step: ChainStep, context: EnforcementContext): void;
}
