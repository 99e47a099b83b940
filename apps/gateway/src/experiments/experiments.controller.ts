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
import { paramBeforeVerb } from '../http/custom-method-route';
import { RequestId } from '../http/request-id.decorator';
import {
  CommitRequestDto,
  CreateExperimentQueryDto,
  CreatePolicyQueryDto,
  DeleteQueryDto,
  ExperimentDto,
  FirewallPolicyDto,
  HistoryResponseDto,
  ListExperimentsQueryDto,
  ListExperimentsResponseDto,
  ListPoliciesResponseDto,
  ListQueryDto,
  MutationQueryDto,
  OperationDto,
  StopPreviewQueryDto,
  UpdateQueryDto,
} from './experiments.dto';
import { Caller, ExperimentPath, ExperimentsClient, PolicyPath } from './experiments.client';

const caller = (
  principal: Principal,
  commandId: string | undefined,
  traceId: string | undefined,
): Caller => ({
  actor: principal.name,
  commandId,
  traceId,
});

/** Plain JSON for the NATS payload: the DTO instance minus undefined fields. */
const plain = (dto: object): object => JSON.parse(JSON.stringify(dto));

/**
 * Live firewall policies and their experiments (AIP-236). Experiment mutations answer with an
 * Operation (AIP-151) whose response is the experiment; `GET /v1/operations/{id}` returns it again.
 * Errors follow google.rpc.Status: 400 INVALID_ARGUMENT (with the bad field), 404 NOT_FOUND,
 * 409 ALREADY_EXISTS / ABORTED (stale etag), 429 RESOURCE_EXHAUSTED (an 11th experiment).
 */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiResponse({
  status: 400,
  description: 'INVALID_ARGUMENT: a bad field, id, filter or page token',
})
@ApiResponse({ status: 404, description: 'NOT_FOUND' })
@Controller('v1/projects/:project/locations/:location/firewallPolicies')
export class ExperimentsController {
  constructor(private readonly experiments: ExperimentsClient) {}

  @Post()
  @ApiOperation({
    summary: 'Create a live policy (with no rules: the no-op policy, e.g. to preview a new policy)',
  })
  @ApiBody({ type: FirewallPolicyDto })
  @ApiOkResponse({ type: FirewallPolicyDto })
  @ApiResponse({ status: 409, description: 'ALREADY_EXISTS' })
  @HttpCode(200)
  createPolicy(
    @Param() path: PolicyPath,
    @Query() query: CreatePolicyQueryDto,
    @Body() policy: FirewallPolicyDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.createPolicy(
      path,
      query.firewallPolicyId,
      plain(policy),
      caller(principal, query.requestId, traceId),
    );
  }

  @Get()
  @ApiOperation({ summary: 'List live policies, by name' })
  @ApiOkResponse({ type: ListPoliciesResponseDto })
  listPolicies(
    @Param() path: PolicyPath,
    @Query() query: ListQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.listPolicies(
      path,
      { pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }

  @Get(':policy')
  @ApiOperation({ summary: 'Get a live policy (its etag guards updates, deletion and commits)' })
  @ApiParam({ name: 'policy' })
  @ApiOkResponse({ type: FirewallPolicyDto })
  getPolicy(@Param() path: PolicyPath, @RequestId() traceId?: string) {
    return this.experiments.getPolicy(path, traceId);
  }

  @Patch(':policy')
  @ApiParam({ name: 'policy' })
  @ApiOperation({
    summary: 'Update a live policy; an etag in the body must be current (else 409 ABORTED)',
  })
  @ApiBody({ type: FirewallPolicyDto })
  @ApiOkResponse({ type: FirewallPolicyDto })
  @ApiResponse({ status: 409, description: 'ABORTED: the etag is stale' })
  updatePolicy(
    @Param() path: PolicyPath,
    @Query() query: UpdateQueryDto,
    @Body() policy: FirewallPolicyDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.updatePolicy(
      path,
      plain(policy),
      query.updateMask,
      caller(principal, query.requestId, traceId),
    );
  }

  @Delete(':policy')
  @ApiParam({ name: 'policy' })
  @ApiOperation({ summary: 'Delete a live policy and, with it, every experiment of it' })
  @ApiOkResponse({ description: 'Empty' })
  @ApiResponse({ status: 409, description: 'ABORTED: the etag is stale' })
  deletePolicy(
    @Param() path: PolicyPath,
    @Query() query: DeleteQueryDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.deletePolicy(
      path,
      query.etag,
      caller(principal, query.requestId, traceId),
    );
  }

  @Get(':policy/events')
  @ApiParam({ name: 'policy' })
  @ApiOperation({ summary: "The live policy's history: type, time, version, actor, request id" })
  @ApiOkResponse({ type: HistoryResponseDto })
  policyEvents(@Param() path: PolicyPath, @RequestId() traceId?: string) {
    return this.experiments.policyEvents(path, traceId);
  }

  @Post(':policy/experiments')
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

  @Get(':policy/experiments')
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

  @Get(':policy/experiments/:experiment')
  @ApiOperation({ summary: 'Get an experiment, with its preview state' })
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOkResponse({ type: ExperimentDto })
  getExperiment(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.experiments.getExperiment(path, traceId);
  }

  @Patch(':policy/experiments/:experiment')
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

  @Delete(':policy/experiments/:experiment')
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

  // Custom methods (AIP-136): the colon is escaped so Express matches it literally.
  @Post(`:policy/experiments/${paramBeforeVerb('experiment')}::startPreview`)
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

  @Post(`:policy/experiments/${paramBeforeVerb('experiment')}::stopPreview`)
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

  @Post(`:policy/experiments/${paramBeforeVerb('experiment')}::commit`)
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
      { etag: body.etag, livePolicyEtag: body.livePolicyEtag, parentEtag: body.parentEtag },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
    );
  }

  @Get(':policy/experiments/:experiment/events')
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({ summary: "The experiment's history: type, time, version, actor, request id" })
  @ApiOkResponse({ type: HistoryResponseDto })
  experimentEvents(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.experiments.experimentEvents(path, traceId);
  }
}
