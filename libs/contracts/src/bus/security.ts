import { ENFORCEMENT_SUBJECTS } from '../enforcement/v1';
import { EXPERIMENT_SUBJECTS } from '../experiment/v1';
import { INSPECTION_RULES_SUBJECTS } from '../inspection/v1';
import { PREVIEW_SUBJECTS } from '../preview/v1';

/**
 * The NATS header carrying the gateway's signed statement of who is calling. Services refuse a
 * request without a valid one (when they are given keys), whatever NATS let through.
 */
export const ACTOR_ASSERTION_HEADER = 'Actor-Assertion';

/** Who the gateway authenticated, as it vouches for them to a service. */
export interface ActorClaims {
  actor: string;
  roles: string[];
  /** Projects the actor may act on, or '*' for all. */
  projects: '*' | string[];
  /** The HTTP request id, so a service's logs tie back to the gateway's. */
  requestId?: string;
}

/** Longest-lived actor assertion a service accepts, whatever it says. */
export const ASSERTION_MAX_TTL_MS = 60_000;
/** How far the gateway's clock may be from a service's. */
export const ASSERTION_CLOCK_SKEW_MS = 5_000;

export interface SystemSigner {
  actor: string;
  subjects: readonly string[];
}

/** Keys with id `system.<service>[.<rotation suffix>]` may assert only this, nothing else. */
export const SYSTEM_SIGNERS: Readonly<Record<string, SystemSigner>> = {
  evaluator: { actor: 'system:evaluator', subjects: [EXPERIMENT_SUBJECTS.stopPreview] },
};

/**
 * The requests that change nothing: a replay of one within its assertion's lifetime, on another
 * replica, answers the same question again, so they are remembered per process only and cost no
 * write. Every other subject is state-changing, a new one included until it is listed here.
 */
export const READ_ONLY_SUBJECTS: ReadonlySet<string> = new Set([
  EXPERIMENT_SUBJECTS.getPolicy,
  EXPERIMENT_SUBJECTS.listPolicies,
  EXPERIMENT_SUBJECTS.policyEvents,
  EXPERIMENT_SUBJECTS.getExperiment,
  EXPERIMENT_SUBJECTS.listExperiments,
  EXPERIMENT_SUBJECTS.experimentEvents,
  EXPERIMENT_SUBJECTS.getOperation,
  EXPERIMENT_SUBJECTS.experimentDiff,
  EXPERIMENT_SUBJECTS.policyDiff,
  EXPERIMENT_SUBJECTS.listRevisions,
  EXPERIMENT_SUBJECTS.getRevision,
  EXPERIMENT_SUBJECTS.listProjects,
  EXPERIMENT_SUBJECTS.getProjectSettings,
  EXPERIMENT_SUBJECTS.statePosition,
  PREVIEW_SUBJECTS.previewLogs,
  PREVIEW_SUBJECTS.previewReport,
  PREVIEW_SUBJECTS.previewFlows,
  PREVIEW_SUBJECTS.getOperation,
  PREVIEW_SUBJECTS.deadLetters,
  ENFORCEMENT_SUBJECTS.getLease,
  ENFORCEMENT_SUBJECTS.listLeases,
  ENFORCEMENT_SUBJECTS.listDecisions,
  INSPECTION_RULES_SUBJECTS.get,
  INSPECTION_RULES_SUBJECTS.list,
  INSPECTION_RULES_SUBJECTS.evaluate,
]);
