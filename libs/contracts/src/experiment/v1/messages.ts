import type { ContractPackage } from '../../packages';
import type { FirewallPolicy, FirewallPolicyExperiment, PolicyContent } from './resources';
import { formatExperimentName, formatPolicyName } from './names';

export const EXPERIMENT_V1: ContractPackage = { name: 'experiment.v1', version: '1.8.0' };

export const EXPERIMENT_SUBJECTS = {
  createPolicy: 'experiment.v1.policies.create',
  getPolicy: 'experiment.v1.policies.get',
  listPolicies: 'experiment.v1.policies.list',
  updatePolicy: 'experiment.v1.policies.update',
  deletePolicy: 'experiment.v1.policies.delete',
  policyEvents: 'experiment.v1.policies.events',
  createExperiment: 'experiment.v1.experiments.create',
  getExperiment: 'experiment.v1.experiments.get',
  listExperiments: 'experiment.v1.experiments.list',
  updateExperiment: 'experiment.v1.experiments.update',
  deleteExperiment: 'experiment.v1.experiments.delete',
  startPreview: 'experiment.v1.experiments.startPreview',
  stopPreview: 'experiment.v1.experiments.stopPreview',
  commit: 'experiment.v1.experiments.commit',
  experimentEvents: 'experiment.v1.experiments.events',
  /** Since 1.5.0. */
  experimentDiff: 'experiment.v1.experiments.diff',
  policyDiff: 'experiment.v1.policies.diff',
  listRevisions: 'experiment.v1.policies.revisions.list',
  getRevision: 'experiment.v1.policies.revisions.get',
  rollback: 'experiment.v1.policies.rollback',
  listProjects: 'experiment.v1.projects.list',
  /** Since 1.6.0. */
  proposeCommit: 'experiment.v1.experiments.proposeCommit',
  approveCommit: 'experiment.v1.experiments.approveCommit',
  getProjectSettings: 'experiment.v1.projects.settings.get',
  updateProjectSettings: 'experiment.v1.projects.settings.update',
  getOperation: 'experiment.v1.operations.get',
  /** Since 1.7.0. */
  statePosition: 'experiment.v1.state.position',
} as const;

/** As the preview report judged them. */
export interface CommitGateEvidence {
  /** requireGates. */
  required: boolean;
  gates: { kind: string; holds: boolean; description: string }[];
}

/** As the gateway checked it. */
export interface CommitEvidenceRecord {
  reportEtag?: string;
  gates?: CommitGateEvidence;
}

export interface CommandContext {
  actor: string;
  /** AIP-155 request id: a retry with the same id returns the first result. */
  requestId?: string;
  /** The HTTP x-request-id (since 1.5.0). */
  traceId?: string;
}

export interface CreatePolicyRequest extends CommandContext {
  parent: string; // projects/{project}/locations/{location}
  firewallPolicyId: string;
  firewallPolicy: unknown;
}
export interface GetRequest {
  name: string;
}
export interface ListRequest {
  parent: string;
  pageSize?: number;
  pageToken?: string;
  filter?: string;
}
export interface UpdatePolicyRequest extends CommandContext {
  firewallPolicy: { name: string; etag?: string } & Record<string, unknown>;
  updateMask?: string;
}
export interface DeleteRequest extends CommandContext {
  name: string;
  etag?: string;
}
export interface CreateExperimentRequest extends CommandContext {
  parent: string; // …/firewallPolicies/{firewallPolicy}
  experimentId: string;
  experiment: unknown;
}
export interface UpdateExperimentRequest extends CommandContext {
  experiment: { name: string; etag?: string } & Record<string, unknown>;
  updateMask?: string;
}
export interface PreviewRequest extends CommandContext {
  name: string;
  /** Act only on this version of the experiment, else ABORTED (since 1.4.0). */
  etag?: string;
  /**
   * Since 1.4.0; the evaluator's auto-stop says which limit was reached.
   * @maxLength 500
   */
  reason?: string;
}
export interface CommitRequest extends CommandContext {
  name: string;
  etag?: string;
  /** Commit only onto this live version (since 1.1.0). */
  livePolicyEtag?: string;
  /**
   * Renamed: the live policy is not a parent as AIP-122 means it.
   * @deprecated since 1.1.0: use `livePolicyEtag`.
   */
  parentEtag?: string;
  /** Since 1.5.0, recorded on the revision. */
  evidence?: CommitEvidenceRecord;
  /**
   * Since 1.6.0, kept in the revision.
   * @maxLength 1000
   */
  reason?: string;
}

/** Since 1.6.0: bound to the etag without moving it, so the counts go on; any change drops it. */
export interface ProposeCommitRequest extends CommandContext {
  name: string;
  /** Required. */
  etag?: string;
  livePolicyEtag?: string;
  evidence?: CommitEvidenceRecord;
  /** @maxLength 1000 */
  reason?: string;
}

/** Since 1.6.0; the approver must not be the proposer. */
export interface ApproveCommitRequest extends CommandContext {
  name: string;
  /** Required: the one the proposal was made on. */
  etag?: string;
  livePolicyEtag?: string;
  /** The reportEtag the approver saw. */
  evidence?: CommitEvidenceRecord;
}

/** `projects/{project}/settings` (since 1.6.0). */
export interface ProjectSettings {
  name: string;
  /** Commit alone is refused: proposeCommit, then another editor's approveCommit. */
  requireCommitReview: boolean;
  etag: string;
  /** @format date-time */
  updateTime?: string;
}

export interface UpdateProjectSettingsRequest extends CommandContext {
  settings: { name: string; etag?: string; requireCommitReview?: boolean };
  /** `requireCommitReview`; absent: every field given. */
  updateMask?: string;
}

/**
 * Published in version order per aggregate and commit order overall, `Nats-Msg-Id` = `id`; a
 * consumer stays idempotent by ignoring a `version` not above the one it holds. History only:
 * current state is in `EXPERIMENT_STATE`.
 */
export const EXPERIMENT_EVENTS_STREAM = 'EXPERIMENT_EVENTS';
export const EXPERIMENT_EVENTS_SUBJECTS = 'experiment.v1.events.>';
export const POLICY_EVENTS_SUBJECTS = 'experiment.v1.events.policy.>';
export const EXPERIMENT_EXPERIMENT_EVENTS_SUBJECTS = 'experiment.v1.events.experiment.>';

export const policyEventSubject = (project: string, location: string, firewallPolicy: string) =>
  `experiment.v1.events.policy.${project}.${location}.${firewallPolicy}`;
export const experimentEventSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
  experiment: string,
) => `experiment.v1.events.experiment.${project}.${location}.${firewallPolicy}.${experiment}`;

/**
 * Each key's last event, written compare-and-set in commit order so it never goes back; complete
 * only once `experiment.v1.relay-position` exists (docs/architecture.md).
 */
export const EXPERIMENT_STATE_BUCKET = 'EXPERIMENT_STATE';
export const STATE_KEY_PREFIX = 'experiment.v1.';
export const STATE_POSITION_KEY = 'experiment.v1.relay-position';
export const STATE_VERSION_HEADER = 'Aggregate-Version';

export const policyStateKey = (project: string, location: string, firewallPolicy: string) =>
  `${STATE_KEY_PREFIX}policy.${project}.${location}.${firewallPolicy}`;
export const experimentStateKey = (
  project: string,
  location: string,
  firewallPolicy: string,
  experiment: string,
) => `${STATE_KEY_PREFIX}experiment.${project}.${location}.${firewallPolicy}.${experiment}`;

export function resourceOfStateKey(
  key: string,
): { kind: 'policy' | 'experiment'; name: string } | undefined {
  const parts = key.split('.');
  if (parts.length < 2 || `${parts[0]}.${parts[1]}.` !== STATE_KEY_PREFIX) return undefined;
  const [kind, project, location, policy, experiment] = parts.slice(2);
  if (kind === 'policy' && parts.length === 6)
    return { kind, name: formatPolicyName({ project, location, policy }) };
  if (kind === 'experiment' && parts.length === 7)
    return { kind, name: formatExperimentName({ project, location, policy, experiment }) };
  return undefined;
}

export type PolicyEventType = 'PolicyCreated' | 'PolicyUpdated' | 'PolicyDeleted';
export type ExperimentEventType =
  | 'ExperimentCreated'
  | 'ExperimentUpdated'
  | 'PreviewStarted'
  | 'PreviewStopped'
  | 'ExperimentCommitted'
  | 'ExperimentDeleted';

export interface PublishedEvent<T, S> {
  /** A UUID, also the `Nats-Msg-Id`. */
  id: string;
  type: T;
  /** The aggregate's resource name. */
  subject: string;
  /** 1, 2, 3… with no gaps. */
  version: number;
  /** RFC 3339. */
  time: string;
  actor: string;
  /** AIP-155. */
  requestId?: string;
  /** The resource after the event; absent after a deletion or a commit. */
  state?: S;
}

export type PolicyEvent = PublishedEvent<PolicyEventType, FirewallPolicy>;
export type ExperimentEvent = PublishedEvent<ExperimentEventType, FirewallPolicyExperiment>;
export type { PolicyContent };
