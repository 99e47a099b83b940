import type { FirewallPolicy, FirewallRule } from '@rollout/contracts';
import {
  type ApiClient,
  type ExperimentRef,
  type PolicyRef,
  experimentPath,
  policiesPath,
  policyPath,
  query,
} from './client';

/**
 * The calls of "know what you commit, and undo it" (rule diffs, revisions, rollback), dead
 * letters and the project list, typed as the HTTP API answers them.
 */

export interface DiffSide {
  revision?: string;
  etag: string;
  label: string;
}
export interface ChangedField {
  field: string;
  before: unknown;
  after: unknown;
}
export interface ChangedRule {
  priority: number;
  before: FirewallRule;
  after: FirewallRule;
  fields: ChangedField[];
}
export interface SemanticChange {
  summary: string;
  region: object;
}
export interface RuleDiff {
  from: DiffSide;
  to: DiffSide;
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  unchangedCount: number;
  semantic: { nowDenied: SemanticChange[]; nowAllowed: SemanticChange[]; truncated: boolean };
}

export interface RevisionSource {
  kind: 'create' | 'update' | 'commit' | 'rollback';
  experiment?: string;
  experimentEtag?: string;
  reportEtag?: string;
  gates?: object;
  rolledBackTo?: string;
}
export interface Revision {
  name: string;
  revisionId: string;
  createTime: string;
  actor: string;
  requestId?: string;
  source: RevisionSource;
  etag: string;
  rules: FirewallRule[] | null;
}
export interface ListRevisionsResponse {
  revisions: Revision[];
  nextPageToken?: string;
}

export interface DeadLetterReasonCount {
  reason: string;
  count: number;
}
export interface DeadLetterSummary {
  total: number;
  byPolicy: {
    policy: string;
    total: number;
    byReason: DeadLetterReasonCount[];
    lastTime: string;
  }[];
  samples: { time: string; policy: string; reason: string; detail: string }[];
}

export interface ListProjectsResponse {
  projects: { projectId: string; policyCount: number }[];
}

const locationPath = (project: string, location: string) =>
  policiesPath(project, location).replace(/\/firewallPolicies$/, '');

export const experimentDiff = (api: ApiClient, ref: ExperimentRef) =>
  api.call<RuleDiff>('GET', `${experimentPath(ref)}:diff`);

/** What going from one revision to another changes (the target defaults to the current one). */
export const revisionDiff = (
  api: ApiClient,
  ref: PolicyRef,
  fromRevision: string,
  toRevision?: string,
) => api.call<RuleDiff>('GET', `${policyPath(ref)}:diff${query({ fromRevision, toRevision })}`);

export const listRevisions = (api: ApiClient, ref: PolicyRef, pageToken?: string) =>
  api.call<ListRevisionsResponse>(
    'GET',
    `${policyPath(ref)}/revisions${query({ pageSize: 20, pageToken })}`,
  );

/** Etag-guarded like a commit: a policy changed meanwhile refuses it. */
export const rollback = (api: ApiClient, ref: PolicyRef, revisionId: string, etag: string) =>
  api.call<FirewallPolicy>('POST', `${policyPath(ref)}:rollback`, { revisionId, etag });

export const deadLetters = (api: ApiClient, project: string, location: string, policy?: string) =>
  api.call<DeadLetterSummary>(
    'GET',
    `${locationPath(project, location)}/deadLetters${query({ policy })}`,
  );

export const listProjects = (api: ApiClient) =>
  api.call<ListProjectsResponse>('GET', '/v1/projects');
