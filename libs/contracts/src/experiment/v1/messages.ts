import type { ContractPackage } from '../../packages';
import type { FirewallPolicy, FirewallPolicyExperiment, PolicyContent } from './resources';
import { formatExperimentName, formatPolicyName } from './names';

export const EXPERIMENT_V1: ContractPackage = { name: 'experiment.v1', version: '1.8.0' };

/** Request/reply subjects served by the experiment-service (queue group experiment-service). */
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
  /** Since 1.5.0: diffs, revisions and rollback of live policies, and the projects holding them. */
  experimentDiff: 'experiment.v1.experiments.diff',
  policyDiff: 'experiment.v1.policies.diff',
  listRevisions: 'experiment.v1.policies.revisions.list',
  getRevision: 'experiment.v1.policies.revisions.get',
  rollback: 'experiment.v1.policies.rollback',
  listProjects: 'experiment.v1.projects.list',
  /** Since 1.6.0: reviewed commits and the project settings that ask for them. */
  proposeCommit: 'experiment.v1.experiments.proposeCommit',
  approveCommit: 'experiment.v1.experiments.approveCommit',
  getProjectSettings: 'experiment.v1.projects.settings.get',
  updateProjectSettings: 'experiment.v1.projects.settings.update',
  getOperation: 'experiment.v1.operations.get',
  /** Since 1.7.0: where the event log stands, for reads that must see every change answered (state-position.ts). */
  statePosition: 'experiment.v1.state.position',
} as const;

/** The readiness gates a commit was checked against, as the preview report judged them. */
export interface CommitGateEvidence {
  /** The commit asked that every gate hold (requireGates). */
  required: boolean;
  gates: { kind: string; holds: boolean; description: string }[];
}

/** What a commit was made on, as the gateway checked it; recorded with the commit. */
export interface CommitEvidenceRecord {
  reportEtag?: string;
  gates?: CommitGateEvidence;
}

/** Who asked, carried on every mutation and recorded on its events. */
export interface CommandContext {
  actor: string;
  /** AIP-155 request id: a retry with the same id returns the first result. */
  requestId?: string;
  /**
   * The HTTP x-request-id of the call that sent the command (since 1.5.0), recorded on its
   * events and shown in their history.
   */
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
   * Why (since 1.4.0), recorded on the event and shown in its history; the evaluator's auto-stop
   * says which limit was reached.
   * @maxLength 500
   */
  reason?: string;
}
export interface CommitRequest extends CommandContext {
  name: string;
  etag?: string;
  /** The live policy's current etag: commit only onto that version (since 1.1.0). */
  livePolicyEtag?: string;
  /**
   * The same as `livePolicyEtag`, under its first name (the live policy is not a parent the
   * way AIP-122 means it, and preview logs already say `livePolicyEtag`).
   * @deprecated since 1.1.0: use `livePolicyEtag`.
   */
  parentEtag?: string;
  /** What the gateway checked the commit against (since 1.5.0), recorded on its revision. */
  evidence?: CommitEvidenceRecord;
  /**
   * Why (since 1.6.0), kept in the revision and its history entry with the experiment's
   * annotations.
   * @maxLength 1000
   */
  reason?: string;
}

/**
 * Proposes to commit an experiment in a project that requires review (since 1.6.0), for another
 * editor to approve. The proposal is bound to the experiment's etag, which it does not move (so
 * the preview's counts go on): any change of the experiment drops it.
 */
export interface ProposeCommitRequest extends CommandContext {
  name: string;
  /** The experiment's current etag (required). */
  etag?: string;
  /** The live policy's current etag: the proposal is for that version of it. */
  livePolicyEtag?: string;
  /** What the gateway checked the proposal against (its reportEtag, its gates). */
  evidence?: CommitEvidenceRecord;
  /**
   * Why, kept in the revision once approved.
   * @maxLength 1000
   */
  reason?: string;
}

/**
 * Approves a proposed commit, and commits (since 1.6.0). The approver is another principal
 * than the proposer; `etag` is the experiment's current etag, the one the proposal was made on.
 */
export interface ApproveCommitRequest extends CommandContext {
  name: string;
  /** The experiment's current etag, the one the proposal was made on (required). */
  etag?: string;
  livePolicyEtag?: string;
  /** What the gateway checked the approval against: the reportEtag the approver saw. */
  evidence?: CommitEvidenceRecord;
}

/** `projects/{project}/settings` (since 1.6.0): how a project's policies may change. */
export interface ProjectSettings {
  name: string;
  /**
   * A commit is a proposal that another editor approves (proposeCommit, approveCommit);
   * commit alone is refused. Default false.
   */
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
 * Domain events of experiment.v1, the evaluator's input, on stream `EXPERIMENT_EVENTS` (30 days):
 * published by the experiment-service's outbox relay once per event id (`Nats-Msg-Id` = `id`), in
 * version order per aggregate and commit order overall, with headers `Event-Type` and
 * `Event-Tx`/`Event-Position` (the event's place in the service's global log). PolicyUpdated is
 * also published when an experiment is committed into the policy, and a policy's deletion follows
 * ExperimentDeleted for each of its experiments.
 *
 * Each event carries the aggregate's full resource after it in `state` (absent after
 * PolicyDeleted, ExperimentCommitted and ExperimentDeleted), so a consumer needs no other read;
 * it stays idempotent by ignoring an event whose `version` is not above the one it holds for that
 * `subject`. The stream is history, with limits: current state is in `EXPERIMENT_STATE`.
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
 * Current state of experiment.v1 (since 1.2.0): KV bucket `EXPERIMENT_STATE`, the last entry per
 * key kept forever, unlike the history stream above. Each value is the aggregate's last event
 * (with `state`); deleting or committing deletes its key (a `DEL` marker). Every entry, markers
 * included, carries `Aggregate-Version` and the event's `Event-Tx`/`Event-Position`, and is
 * written compare-and-set in commit order, never below the version held, so it never goes back.
 * The bucket is complete only once `experiment.v1.relay-position` exists (a new bucket, or one
 * filled from the event store at upgrade, is still being filled). See docs/architecture.md.
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

/** The resource a state key holds, or undefined for any other key. */
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
  /** Event id (a UUID), also the `Nats-Msg-Id`. */
  id: string;
  type: T;
  /** The aggregate's resource name. */
  subject: string;
  /** The aggregate's version after this event: 1, 2, 3… with no gaps. */
  version: number;
  /** When it was appended (RFC 3339). */
  time: string;
  /** Who asked (the authenticated principal). */
  actor: string;
  /** The AIP-155 request id of the command, when it had one. */
  requestId?: string;
  /** The resource after the event (absent after a deletion or a commit). */
  state?: S;
}

export type PolicyEvent = PublishedEvent<PolicyEventType, FirewallPolicy>;
export type ExperimentEvent = PublishedEvent<ExperimentEventType, FirewallPolicyExperiment>;
export type { PolicyContent };
