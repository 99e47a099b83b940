import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
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
  DeleteQueryDto,
  HistoryResponseDto,
  MutationQueryDto,
  OperationDto,
  StopPreviewQueryDto,
  UpdateQueryDto,
} from './experiment-operations.dto';
import { ExperimentPath, ExperimentsClient, PolicyPath } from './experiments.client';
import { EXPERIMENTS_ROUTE, EXPERIMENT_ROUTE, experimentVerbRoute } from '../http/resource-routes';
import { FirewallPolicyApi } from './firewall-policy-api';

/** AIP-236. Mutations answer with an Operation (AIP-151) whose response is the experiment. */
@FirewallPolicyApi()
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

  @Get(`${EXPERIMENT_ROUTE}/events`)
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({ summary: "The experiment's history: type, time, version, actor, request id" })
  @ApiOkResponse({ type: HistoryResponseDto })
  experimentEvents(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.experiments.experimentEvents(path, traceId);
  }
}
