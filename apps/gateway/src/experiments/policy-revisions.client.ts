import { Injectable } from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS as S,
  ListProjectsResponse,
  ListRevisionsResponse,
  Operation,
  FirewallPolicy,
  Revision,
  RuleDiff,
  formatExperimentName,
  formatPolicyName,
  formatRevisionName,
} from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import { Caller, ExperimentPath, PolicyPath, command } from './experiments.client';

@Injectable()
export class PolicyRevisionsClient {
  constructor(private readonly backend: BackendClient) {}

  experimentDiff(path: ExperimentPath, traceId?: string) {
    return this.backend.call<RuleDiff>(
      S.experimentDiff,
      { name: formatExperimentName(path) },
      traceId,
    );
  }

  policyDiff(path: PolicyPath, fromRevision: string, toRevision?: string, traceId?: string) {
    return this.backend.call<RuleDiff>(
      S.policyDiff,
      { name: formatPolicyName(path), fromRevision, ...(toRevision ? { toRevision } : {}) },
      traceId,
    );
  }

  listRevisions(
    path: PolicyPath,
    page: { pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    return this.backend.call<ListRevisionsResponse>(
      S.listRevisions,
      { name: formatPolicyName(path), ...page },
      traceId,
    );
  }

  getRevision(path: PolicyPath, revisionId: string, traceId?: string) {
    return this.backend.call<Revision>(
      S.getRevision,
      { name: formatRevisionName(formatPolicyName(path), revisionId) },
      traceId,
    );
  }

  rollback(
    path: PolicyPath,
    body: { revisionId: string; etag: string; reason?: string },
    caller: Caller,
  ) {
    return this.backend.call<Operation<FirewallPolicy>>(
      S.rollback,
      { name: formatPolicyName(path), ...body, ...command(caller) },
      caller.traceId,
    );
  }

  listProjects(projects: string[] | undefined, traceId?: string) {
    return this.backend.call<ListProjectsResponse>(
      S.listProjects,
      projects ? { projects } : {},
      traceId,
    );
  }
}
