import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RequestId } from '../http/request-id.decorator';
import { caller } from './command-caller';
import { ListQueryDto, OperationDto } from './experiment-operations.dto';
import type { ExperimentPath, PolicyPath } from './experiments.client';
import { PolicyRevisionsClient } from './policy-revisions.client';
import {
  ListRevisionsResponseDto,
  PolicyDiffQueryDto,
  RevisionDto,
  RollbackRequestDto,
  RuleDiffDto,
} from './policy-revisions.dto';
import { POLICY_ROUTE, experimentVerbRoute, policyVerbRoute } from '../http/resource-routes';

/** Diffs are AIP-136 custom methods on GET, as they change nothing; revisions are AIP-162. */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiParam({ name: 'policy' })
@ApiResponse({ status: 400, description: 'INVALID_ARGUMENT: a bad revision id or page token' })
@ApiResponse({ status: 404, description: 'NOT_FOUND' })
@Controller()
export class PolicyRevisionsController {
  constructor(private readonly revisions: PolicyRevisionsClient) {}

  @Get(experimentVerbRoute('diff'))
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary:
      "The experiment's whole resource against its live policy's, as a commit would change it",
    description:
      'The policy fields that differ (`policyFields`), rules added, removed and changed field by field (matched by priority, compared after normalisation: equivalent rewrites are `rewritten`, not changed; list fields element by element), and in `semantic` the regions of traffic whose verdict changes, in words.',
  })
  @ApiOkResponse({ type: RuleDiffDto })
  experimentDiff(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.revisions.experimentDiff(path, traceId);
  }

  @Get(policyVerbRoute('diff'))
  @ApiOperation({
    summary: 'The rules of one revision of the live policy against another',
    description: 'toRevision defaults to the current revision.',
  })
  @ApiOkResponse({ type: RuleDiffDto })
  @ApiResponse({
    status: 400,
    description: 'FAILED_PRECONDITION: a revision recorded without its rules',
  })
  policyDiff(
    @Param() path: PolicyPath,
    @Query() query: PolicyDiffQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.revisions.policyDiff(path, query.fromRevision, query.toRevision, traceId);
  }

  @Get(`${POLICY_ROUTE}/revisions`)
  @ApiOperation({ summary: 'Every change of the live policy, newest first (AIP-162)' })
  @ApiOkResponse({ type: ListRevisionsResponseDto })
  listRevisions(
    @Param() path: PolicyPath,
    @Query() query: ListQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.revisions.listRevisions(
      path,
      { pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }

  @Get(`${POLICY_ROUTE}/revisions/:revisionId`)
  @ApiParam({ name: 'revisionId', example: '3' })
  @ApiOperation({ summary: 'One revision of the live policy, with its rules and source' })
  @ApiOkResponse({ type: RevisionDto })
  getRevision(@Param() path: PolicyPath & { revisionId: string }, @RequestId() traceId?: string) {
    return this.revisions.getRevision(path, path.revisionId, traceId);
  }

  @Post(policyVerbRoute('rollback'))
  @ApiOperation({
    summary: "Make an older revision's whole resource live again, as a new revision",
    description:
      "Display name, description and rules. Atomic and guarded by the live policy's etag as commit is; history is never rewritten.",
  })
  @ApiBody({ type: RollbackRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the live policy after the rollback',
  })
  @ApiResponse({
    status: 409,
    description: 'ABORTED: the etag is stale (another change came first); nothing changed',
  })
  @HttpCode(200)
  rollback(
    @Param() path: PolicyPath,
    @Body() body: RollbackRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.revisions.rollback(
      path,
      {
        revisionId: body.revisionId,
        etag: body.etag,
        ...(body.reason ? { reason: body.reason } : {}),
      },
      caller(principal, body.requestId, traceId),
    );
  }
}
