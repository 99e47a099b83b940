import type { ContractPackage } from '../../packages';
import type { FirewallPolicy, FirewallPolicyExperiment, PolicyContent } from './resources';

export const EXPERIMENT_V1: ContractPackage = { name: 'experiment.v1', version: '1.0.0' };

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
  getOperation: 'experiment.v1.operations.get',
} as const;

/** Who asked, carried on every mutation and recorded on its events. */
export interface CommandContext {
  actor: string;
  /** AIP-155 request id: a retry with the same id returns the first result. */
  requestId?: string;
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
}
export interface CommitRequest extends CommandContext {
  name: string;
  etag?: string;
  parentEtag?: string;
}

/**
 * Domain events, published to JetStream stream EXPERIMENT_EVENTS after commit, once per
 * event id (`Nats-Msg-Id`), in order per aggregate, on
 * `experiment.v1.events.policy.{project}.{location}.{policy}` and
 * `experiment.v1.events.experiment.{project}.{location}.{policy}.{experiment}`.
 * Each carries the aggregate's full state after the event, so a consumer (the evaluator)
 * needs no other read to keep its snapshot of live policies and ACTIVE experiments.
 */
export const EXPERIMENT_EVENTS_STREAM = 'EXPERIMENT_EVENTS';
export const EXPERIMENT_EVENTS_SUBJECTS = 'experiment.v1.events.>';

export type PolicyEventType = 'PolicyCreated' | 'PolicyUpdated' | 'PolicyDeleted';
export type ExperimentEventType =
  | 'ExperimentCreated'
  | 'ExperimentUpdated'
  | 'PreviewStarted'
  | 'PreviewStopped'
  | 'ExperimentCommitted'
  | 'ExperimentDeleted';

export interface PublishedEvent<T, S> {
  id: string;
  type: T;
  /** The aggregate's resource name. */
  subject: string;
  version: number;
  time: string;
  actor: string;
  requestId?: string;
  /** The resource after the event (absent after a deletion or a commit). */
  state?: S;
}

export type PolicyEvent = PublishedEvent<PolicyEventType, FirewallPolicy>;
export type ExperimentEvent = PublishedEvent<ExperimentEventType, FirewallPolicyExperiment>;
export type { PolicyContent };
