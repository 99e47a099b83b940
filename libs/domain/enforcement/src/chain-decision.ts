import type { StatusCode } from '@rollout/contracts';
import type { EnforcementContext, FilterMode, Hook } from './model';

/**
 * What one filter did for one hook.
 * - `would_deny`: a dryrun filter denied (or failed); the request still passes.
 * - `fail_open`: the filter could not decide and its failure policy allows; the request passes.
 * - `error`: the filter threw or timed out with a closed failure policy (a check hook counts it
 *   as a denial; on_end only records it).
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
  /**
   * Present when refused: the first enforcing filter that denied, and its message for the user;
   * `failure` when the filter refused because it could not decide (an error, not its policy).
   */
  denial?: { filter: string; message: string; failure?: { status: StatusCode } };
  /** True when the project is exempted: no filter ran. */
  exempted: boolean;
  steps: ChainStep[];
}

/** Receives every step as it happens (logging, metrics). Must not throw; errors are swallowed. */
export interface ChainObserver {
  onStep(hook: Hook, step: ChainStep, context: EnforcementContext): void;
}
