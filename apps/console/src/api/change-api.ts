import type {
  DeadLetterSummary,
  FirewallPolicy,
  ListProjectsResponse,
  ListRevisionsResponse,
  RuleDiff,
} from '@rollout/contracts';
import {
  type ApiClient,
  type ExperimentRef,
  type PolicyRef,
  experimentPath,
  parentPath,
  policyPath,
  query,
} from './client';

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
    `${parentPath(project, location)}/deadLetters${query({ policy })}`,
  );

export const listProjects = (api: ApiClient) =>
  api.call<ListProjectsResponse>('GET', '/v1/projects');
