import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
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
import { plain } from '../http/plain';
import { caller } from './command-caller';
import {
  ExperimentDto,
  CreateExperimentQueryDto,
  ListExperimentsQueryDto,
  ListExperimentsResponseDto,
} from './experiment.dto';
import {
  ApproveCommitRequestDto,
  CommitRequestDto,
  ProposeCommitRequestDto,
  DeleteQueryDto,
  HistoryResponseDto,
  MutationQueryDto,
  OperationDto,
  StopPreviewQueryDto,
  UpdateQueryDto,
} from './experiment-operations.dto';
import { ExperimentPath, ExperimentsClient, PolicyPath } from './experiments.client';
import { EXPERIMENTS_ROUTE, EXPERIMENT_ROUTE, experimentVerbRoute } from '../http/resource-routes';

/** AIP-236. Mutations answer with an Operation (AIP-151) whose response is the experiment. */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiResponse({
  status: 400,
  description: 'INVALID_ARGUMENT: a bad field, id, filter or page token',
})
@ApiResponse({ status: 404, description: 'NOT_FOUND' })
@Controller()
export class ExperimentsController {
  constructor(private readonly experiments: ExperimentsClient) {}

  @Post(EXPERIMENTS_ROUTE)
  @ApiParam({ name: 'policy' })
  @ApiOperation({
    summary: 'Create an experiment holding a new version of the policy (at most 10 per policy)',
  })
  @ApiBody({ type: ExperimentDto })
  @ApiOkResponse({ type: OperationDto })
  @ApiResponse({
    status: 429,
    description: 'RESOURCE_EXHAUSTED: the policy has 10 experiments already',
  })
  @HttpCode(200)
  createExperiment(
    @Param() path: PolicyPath,
    @Query() query: CreateExperimentQueryDto,
    @Body() experiment: ExperimentDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.createExperiment(
      path,
      query.experimentId,
      plain(experiment),
      caller(principal, query.requestId, traceId),
    );
  }

  @Get(EXPERIMENTS_ROUTE)
  @ApiParam({ name: 'policy' })
  @ApiOperation({
    summary: 'List experiments, by name; filter e.g. previewMetadata.state = ACTIVE',
  })
  @ApiOkResponse({ type: ListExperimentsResponseDto })
  listExperiments(
    @Param() path: PolicyPath,
    @Query() query: ListExperimentsQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.listExperiments(
      path,
      { filter: query.filter, pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }

  @Get(EXPERIMENT_ROUTE)
  @ApiOperation({ summary: 'Get an experiment, with its preview state' })
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOkResponse({ type: ExperimentDto })
  getExperiment(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.experiments.getExperiment(path, traceId);
  }

  @Patch(EXPERIMENT_ROUTE)
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary:
      'Update an experiment (firewallPolicy.name cannot change); an ACTIVE preview becomes SUSPENDED',
  })
  @ApiBody({ type: ExperimentDto })
  @ApiOkResponse({ type: OperationDto })
  @ApiResponse({ status: 409, description: 'ABORTED: the etag is stale' })
  updateExperiment(
    @Param() path: ExperimentPath,
    @Query() query: UpdateQueryDto,
    @Body() experiment: ExperimentDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.updateExperiment(
      path,
      plain(experiment),
      query.updateMask,
      caller(principal, query.requestId, traceId),
    );
  }

  @Delete(EXPERIMENT_ROUTE)
  @ApiOperation({
    summary:
      'Delete an experiment (the live policy is untouched); an etag, when given, must be current',
  })
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOkResponse({ type: OperationDto })
  @ApiResponse({ status: 409, description: 'ABORTED: the etag is stale' })
  deleteExperiment(
    @Param() path: ExperimentPath,
    @Query() query: DeleteQueryDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.deleteExperiment(
      path,
      query.etag,
      caller(principal, query.requestId, traceId),
    );
  }

  // Custom methods (AIP-136): `::` is a literal colon to Fastify's router (see paramBeforeVerb).
  @Post(experimentVerbRoute('startPreview'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary: 'Start previewing: state ACTIVE, startTime now, logs under FirewallPolicyPreviewLog',
  })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  startPreview(
    @Param() path: ExperimentPath,
    @Query() query: MutationQueryDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.customMethod(
      path,
      'startPreview',
      {},
      caller(principal, query.requestId, traceId),
    );
  }

  @Post(experimentVerbRoute('stopPreview'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({ summary: 'Stop previewing: state SUSPENDED, stopTime now' })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  stopPreview(
    @Param() path: ExperimentPath,
    @Query() query: StopPreviewQueryDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.customMethod(
      path,
      'stopPreview',
      query.reason ? { reason: query.reason } : {},
      caller(principal, query.requestId, traceId),
    );
  }

  @Post(experimentVerbRoute('commit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary:
      "Atomically make the experiment's policy the live policy and delete the experiment (any state)",
    description:
      'With requireGates or reportEtag, the preview report is checked first (a separate step, before the commit): see docs/readiness-gates.md.',
  })
  @ApiBody({ type: CommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the new live policy',
  })
  @ApiResponse({
    status: 409,
    description:
      'ABORTED: etag or livePolicyEtag is stale, or the report moved on since reportEtag; nothing changed',
  })
  @ApiResponse({
    status: 400,
    description:
      'FAILED_PRECONDITION (requireGates): the unmet readiness gates, one google.rpc.PreconditionFailure violation each',
  })
  @HttpCode(200)
  commit(
    @Param() path: ExperimentPath,
    @Body() body: CommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      {
        etag: body.etag,
        livePolicyEtag: body.livePolicyEtag,
        parentEtag: body.parentEtag,
        ...(body.reason ? { reason: body.reason } : {}),
      },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
    );
  }

  @Post(experimentVerbRoute('proposeCommit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary: 'Propose to commit the experiment, for another editor to approve',
    description:
      'Where the project requires review (GET /v1/projects/{project}/settings), a commit is a proposal: it is recorded on the experiment (`commitProposal`, shown on GET; the etag does not move) and bound to the experiment as it is now: any update drops it. Checked as commit is (etags, requireGates, reportEtag). See docs/api.md#reviewed-commits.',
  })
  @ApiBody({ type: ProposeCommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the experiment with its commitProposal',
  })
  @ApiResponse({ status: 409, description: 'ABORTED: etag or livePolicyEtag is stale' })
  @HttpCode(200)
  proposeCommit(
    @Param() path: ExperimentPath,
    @Body() body: ProposeCommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      {
        etag: body.etag,
        livePolicyEtag: body.livePolicyEtag ?? body.parentEtag,
        ...(body.reason ? { reason: body.reason } : {}),
      },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
      'proposeCommit',
    );
  }

  @Post(experimentVerbRoute('approveCommit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary: "Approve the experiment's commit proposal, and commit",
    description:
      'By an editor other than the proposer. The revision keeps the proposer, the approver, both request ids, the reason and the reportEtag the approver read.',
  })
  @ApiBody({ type: ApproveCommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the new live policy',
  })
  @ApiResponse({
    status: 400,
    description:
      'FAILED_PRECONDITION (NO_COMMIT_PROPOSAL): nothing proposed, or dropped by an update',
  })
  @ApiResponse({
    status: 403,
    description:
      'PERMISSION_DENIED (SELF_APPROVAL): the proposer cannot approve their own proposal',
  })
  @ApiResponse({ status: 409, description: 'ABORTED: a stale etag, or the report moved on' })
  @HttpCode(200)
  approveCommit(
    @Param() path: ExperimentPath,
    @Body() body: ApproveCommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      { etag: body.etag, livePolicyEtag: body.livePolicyEtag },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
      'approveCommit',
    );
  }

  @Get(`${EXPERIMENT_ROUTE}/events`)
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({ summary: "The experiment's history: type, time, version, actor, request id" })
  @ApiOkResponse({ type: HistoryResponseDto })
  experimentEvents(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.experiments.experimentEvents(path, traceId);
  }
}
