import type {
  DeadLetterSummary,
  FirewallPolicy,
  ListProjectsResponse,
  FirewallPolicyExperiment,
  ListRevisionsResponse,
  Operation,
  ProjectSettings,
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
  segment,
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
export const rollback = (
  api: ApiClient,
  ref: PolicyRef,
  revisionId: string,
  etag: string,
  reason?: string,
) =>
  api.call<FirewallPolicy>('POST', `${policyPath(ref)}:rollback`, {
    revisionId,
    etag,
    ...(reason ? { reason } : {}),
  });

/** An experiment holding the revision's whole resource, whose diff, backtest and preview say what going back would do. */
export const experimentFromRevision = (
  api: ApiClient,
  ref: PolicyRef,
  experimentId: string,
  sourceRevision: string,
) =>
  api.call<Operation<FirewallPolicyExperiment>>(
    'POST',
    `${policyPath(ref)}/experiments${query({ experimentId })}`,
    { sourceRevision },
  );

export const projectSettings = (api: ApiClient, project: string) =>
  api.call<ProjectSettings>('GET', `/v1/projects/${segment(project)}/settings`);

export const deadLetters = (api: ApiClient, project: string, location: string, policy?: string) =>
  api.call<DeadLetterSummary>(
    'GET',
    `${parentPath(project, location)}/deadLetters${query({ policy })}`,
  );

export const listProjects = (api: ApiClient) =>
  api.call<ListProjectsResponse>('GET', '/v1/projects');
