import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GetRequest,
  ListProjectsRequest,
  ListProjectsResponse,
  ListRevisionsRequest,
  PolicyDiffRequest,
  RollbackRequest,
  StatusError,
  EXPERIMENT_SUBJECTS as S,
  requireResourceId,
} from '@rollout/contracts';
import { PoliciesRepository } from '../aggregates/policies.repository';
import { PolicyRevisions } from './policy-revisions.application';

/** experiment.v1 (1.5.0) request/reply: revisions, diffs and rollback of live policies; projects. */
@Controller()
export class RevisionHandlers {
  constructor(
    private readonly revisions: PolicyRevisions,
    private readonly policies: PoliciesRepository,
  ) {}

  @MessagePattern(S.listRevisions) listRevisions(@Payload() r: ListRevisionsRequest) {
    return this.revisions.listRevisions(r);
  }
  @MessagePattern(S.getRevision) getRevision(@Payload() r: GetRequest) {
    return this.revisions.getRevision(r);
  }
  @MessagePattern(S.policyDiff) policyDiff(@Payload() r: PolicyDiffRequest) {
    return this.revisions.policyDiff(r);
  }
  @MessagePattern(S.experimentDiff) experimentDiff(@Payload() r: GetRequest) {
    return this.revisions.experimentDiff(r);
  }
  @MessagePattern(S.rollback) rollback(@Payload() r: RollbackRequest) {
    return this.revisions.rollback(r);
  }
  @MessagePattern(S.listProjects) async listProjects(
    @Payload() r: ListProjectsRequest,
  ): Promise<ListProjectsResponse> {
    const only = r?.projects;
    if (only !== undefined && !Array.isArray(only))
      throw StatusError.invalidArgument('projects must be a list of project ids.', [
        { field: 'projects', description: 'a list of project ids' },
      ]);
    return {
      projects: await this.policies.projects(only?.map((p) => requireResourceId('projects', p))),
    };
  }
}
