import { definePackage } from '../../packages';
import {
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_STATE_BUCKET,
  experimentStateKey,
  policyStateKey,
  EXPERIMENT_SUBJECTS as S,
  experimentEventSubject,
  policyEventSubject,
} from './messages';
import type {
  FirewallPolicy,
  FirewallPolicyExperiment,
  HistoryEvent,
  Operation,
} from './resources';

// Replies the service returns that have no name of their own in messages.ts.
export interface ListHistoryEventsResponse {
  events: HistoryEvent[];
}
export type PolicyOperation = Operation<FirewallPolicy>;
export type ExperimentOperation = Operation<FirewallPolicyExperiment>;
export type Empty = Record<string, never>;

const service = 'experiment-service';

/** `experiment.v1`: live firewall policies and their experiments (AIP-236). */
export const EXPERIMENT_V1_PACKAGE = definePackage({
  name: 'experiment.v1',
  version: '1.8.0',
  stability: 'stable',
  requests: [
    'CreatePolicyRequest',
    'GetRequest',
    'ListRequest',
    'UpdatePolicyRequest',
    'DeleteRequest',
    'CreateExperimentRequest',
    'UpdateExperimentRequest',
    'PreviewRequest',
    'CommitRequest',
    'ListRevisionsRequest',
    'RollbackRequest',
    'PolicyDiffRequest',
    'ListProjectsRequest',
    'ProposeCommitRequest',
    'ApproveCommitRequest',
    'UpdateProjectSettingsRequest',
    'GetStatePositionRequest',
  ],
  replies: [
    'ListPoliciesResponse',
    'ListExperimentsResponse',
    'ListHistoryEventsResponse',
    'Operation',
    'PolicyOperation',
    'ExperimentOperation',
    'Empty',
    'RuleDiff',
    'ListRevisionsResponse',
    'ListProjectsResponse',
    'StatePosition',
  ],
  events: ['PolicyEvent', 'ExperimentEvent'],
  resources: ['FirewallPolicy', 'FirewallPolicyExperiment', 'Revision', 'ProjectSettings'],
  deprecations: [
    {
      target: 'CommitRequest.parentEtag',
      since: '1.1.0',
      replacement: 'CommitRequest.livePolicyEtag',
      date: '2026-11-23',
      sunset: '2027-12-31',
    },
  ],
  requestReply: [
    { subject: S.createPolicy, service, request: 'CreatePolicyRequest', reply: 'FirewallPolicy' },
    { subject: S.getPolicy, service, request: 'GetRequest', reply: 'FirewallPolicy' },
    { subject: S.listPolicies, service, request: 'ListRequest', reply: 'ListPoliciesResponse' },
    { subject: S.updatePolicy, service, request: 'UpdatePolicyRequest', reply: 'FirewallPolicy' },
    { subject: S.deletePolicy, service, request: 'DeleteRequest', reply: 'Empty' },
    { subject: S.policyEvents, service, request: 'GetRequest', reply: 'ListHistoryEventsResponse' },
    {
      subject: S.createExperiment,
      service,
      request: 'CreateExperimentRequest',
      reply: 'ExperimentOperation',
    },
    { subject: S.getExperiment, service, request: 'GetRequest', reply: 'FirewallPolicyExperiment' },
    {
      subject: S.listExperiments,
      service,
      request: 'ListRequest',
      reply: 'ListExperimentsResponse',
    },
    {
      subject: S.updateExperiment,
      service,
      request: 'UpdateExperimentRequest',
      reply: 'ExperimentOperation',
    },
    { subject: S.deleteExperiment, service, request: 'DeleteRequest', reply: 'Operation' },
    { subject: S.startPreview, service, request: 'PreviewRequest', reply: 'ExperimentOperation' },
    { subject: S.stopPreview, service, request: 'PreviewRequest', reply: 'ExperimentOperation' },
    { subject: S.commit, service, request: 'CommitRequest', reply: 'PolicyOperation' },
    {
      subject: S.experimentEvents,
      service,
      request: 'GetRequest',
      reply: 'ListHistoryEventsResponse',
    },
    { subject: S.getOperation, service, request: 'GetRequest', reply: 'Operation' },
    { subject: S.experimentDiff, service, request: 'GetRequest', reply: 'RuleDiff' },
    { subject: S.policyDiff, service, request: 'PolicyDiffRequest', reply: 'RuleDiff' },
    {
      subject: S.listRevisions,
      service,
      request: 'ListRevisionsRequest',
      reply: 'ListRevisionsResponse',
    },
    { subject: S.getRevision, service, request: 'GetRequest', reply: 'Revision' },
    { subject: S.rollback, service, request: 'RollbackRequest', reply: 'PolicyOperation' },
    {
      subject: S.listProjects,
      service,
      request: 'ListProjectsRequest',
      reply: 'ListProjectsResponse',
    },
    {
      subject: S.proposeCommit,
      service,
      request: 'ProposeCommitRequest',
      reply: 'ExperimentOperation',
    },
    {
      subject: S.approveCommit,
      service,
      request: 'ApproveCommitRequest',
      reply: 'PolicyOperation',
    },
    { subject: S.getProjectSettings, service, request: 'GetRequest', reply: 'ProjectSettings' },
    {
      subject: S.updateProjectSettings,
      service,
      request: 'UpdateProjectSettingsRequest',
      reply: 'ProjectSettings',
    },
    {
      subject: S.statePosition,
      service,
      request: 'GetStatePositionRequest',
      reply: 'StatePosition',
    },
  ],
  streams: [
    {
      subject: policyEventSubject('{project}', '{location}', '{firewallPolicy}'),
      stream: EXPERIMENT_EVENTS_STREAM,
      direction: 'out',
      service,
      message: 'PolicyEvent',
    },
    {
      subject: experimentEventSubject(
        '{project}',
        '{location}',
        '{firewallPolicy}',
        '{experiment}',
      ),
      stream: EXPERIMENT_EVENTS_STREAM,
      direction: 'out',
      service,
      message: 'ExperimentEvent',
    },
    {
      subject: `$KV.${EXPERIMENT_STATE_BUCKET}.${policyStateKey('{project}', '{location}', '{firewallPolicy}')}`,
      stream: `KV_${EXPERIMENT_STATE_BUCKET}`,
      direction: 'out',
      service,
      message: 'PolicyEvent',
    },
    {
      subject: `$KV.${EXPERIMENT_STATE_BUCKET}.${experimentStateKey('{project}', '{location}', '{firewallPolicy}', '{experiment}')}`,
      stream: `KV_${EXPERIMENT_STATE_BUCKET}`,
      direction: 'out',
      service,
      message: 'ExperimentEvent',
    },
  ],
});
