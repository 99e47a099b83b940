import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { EXPERIMENT_SUBJECTS as S, StatusError } from '@rollout/contracts';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import { CommitRequestDto, ExperimentDto, FirewallPolicyDto, OperationDto } from './experiments.dto';

type Body = Record<string, unknown>;

function pageSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value)) {
    throw StatusError.invalidArgument('pageSize must be a non-negative integer.', [{ field: 'pageSize', description: 'integer' }]);
  }
  return Number(value);
}

function body(value: unknown): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw StatusError.invalidArgument('The request body must be a JSON object.');
  }
  return value as Body;
}

/**
 * Live firewall policies and their experiments (AIP-236), served by the experiment-service.
 * The gateway only names the resource, adds who is asking, and passes the call on.
 */
@ApiTags('firewall policies')
@ApiBearerAuth()
@Controller('v1/projects/:project/locations/:location/firewallPolicies')
export class ExperimentsController {
  constructor(private readonly backend: BackendClient) {}

  private call<T>(subject: string, data: object, requestId?: string) {
    return this.backend.call<T>(subject, data, requestId);
  }

  @Post()
  @ApiOperation({ summary: 'Create a live policy (with no rules: the no-op policy)' })
  @ApiQuery({ name: 'firewallPolicyId', required: true })
  @ApiBody({ type: FirewallPolicyDto })
  @ApiOkResponse({ type: FirewallPolicyDto })
  @HttpCode(200)
  createPolicy(
    @Param('project') project: string,
    @Param('location') location: string,
    @Query('firewallPolicyId') firewallPolicyId: string,
    @Query('requestId') commandId: string | undefined,
    @Body() policy: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    const parent = `projects/${project}/locations/${location}`;
    return this.call(S.createPolicy, { parent, firewallPolicyId, firewallPolicy: body(policy), actor: principal.name, requestId: commandId }, requestId);
  }

  @Get()
  @ApiOperation({ summary: 'List live policies' })
  @ApiQuery({ name: 'pageSize', required: false })
  @ApiQuery({ name: 'pageToken', required: false })
  listPolicies(
    @Param('project') project: string,
    @Param('location') location: string,
    @Query('pageSize') size: string | undefined,
    @Query('pageToken') pageToken: string | undefined,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.listPolicies, { parent: `projects/${project}/locations/${location}`, pageSize: pageSize(size), pageToken }, requestId);
  }

  @Get(':policy')
  @ApiOkResponse({ type: FirewallPolicyDto })
  getPolicy(@Param() p: Record<string, string>, @RequestId() requestId?: string) {
    return this.call(S.getPolicy, { name: policyName(p) }, requestId);
  }

  @Patch(':policy')
  @ApiOperation({ summary: 'Update a live policy; an etag in the body must match (else 409 ABORTED)' })
  @ApiQuery({ name: 'updateMask', required: false, example: 'rules,displayName' })
  @ApiBody({ type: FirewallPolicyDto })
  @ApiOkResponse({ type: FirewallPolicyDto })
  updatePolicy(
    @Param() p: Record<string, string>,
    @Query('updateMask') updateMask: string | undefined,
    @Query('requestId') commandId: string | undefined,
    @Body() policy: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    const firewallPolicy = { ...body(policy), name: policyName(p) };
    return this.call(S.updatePolicy, { firewallPolicy, updateMask, actor: principal.name, requestId: commandId }, requestId);
  }

  @Delete(':policy')
  @ApiOperation({ summary: 'Delete a live policy and, with it, every experiment of it' })
  deletePolicy(
    @Param() p: Record<string, string>,
    @Query('etag') etag: string | undefined,
    @Query('requestId') commandId: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.deletePolicy, { name: policyName(p), etag, actor: principal.name, requestId: commandId }, requestId);
  }

  @Get(':policy/events')
  @ApiOperation({ summary: "The live policy's history: type, time, version, actor, request id" })
  policyEvents(@Param() p: Record<string, string>, @RequestId() requestId?: string) {
    return this.call(S.policyEvents, { name: policyName(p) }, requestId);
  }

  @Post(':policy/experiments')
  @ApiOperation({ summary: 'Create an experiment holding a new version of the policy (at most 10 per policy)' })
  @ApiQuery({ name: 'experimentId', required: true })
  @ApiBody({ type: ExperimentDto })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  createExperiment(
    @Param() p: Record<string, string>,
    @Query('experimentId') experimentId: string,
    @Query('requestId') commandId: string | undefined,
    @Body() experiment: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.createExperiment, { parent: policyName(p), experimentId, experiment: body(experiment), actor: principal.name, requestId: commandId }, requestId);
  }

  @Get(':policy/experiments')
  @ApiOperation({ summary: 'List experiments; filter e.g. previewMetadata.state = ACTIVE' })
  @ApiQuery({ name: 'filter', required: false })
  @ApiQuery({ name: 'pageSize', required: false })
  @ApiQuery({ name: 'pageToken', required: false })
  listExperiments(
    @Param() p: Record<string, string>,
    @Query('filter') filter: string | undefined,
    @Query('pageSize') size: string | undefined,
    @Query('pageToken') pageToken: string | undefined,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.listExperiments, { parent: policyName(p), filter, pageSize: pageSize(size), pageToken }, requestId);
  }

  @Get(':policy/experiments/:experiment')
  @ApiOkResponse({ type: ExperimentDto })
  getExperiment(@Param() p: Record<string, string>, @RequestId() requestId?: string) {
    return this.call(S.getExperiment, { name: experimentName(p) }, requestId);
  }

  @Patch(':policy/experiments/:experiment')
  @ApiOperation({ summary: 'Update an experiment; an ACTIVE preview becomes SUSPENDED' })
  @ApiQuery({ name: 'updateMask', required: false, example: 'firewallPolicy.rules,annotations' })
  @ApiBody({ type: ExperimentDto })
  @ApiOkResponse({ type: OperationDto })
  updateExperiment(
    @Param() p: Record<string, string>,
    @Query('updateMask') updateMask: string | undefined,
    @Query('requestId') commandId: string | undefined,
    @Body() experiment: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.updateExperiment, { experiment: { ...body(experiment), name: experimentName(p) }, updateMask, actor: principal.name, requestId: commandId }, requestId);
  }

  @Delete(':policy/experiments/:experiment')
  @ApiOkResponse({ type: OperationDto })
  deleteExperiment(
    @Param() p: Record<string, string>,
    @Query('etag') etag: string | undefined,
    @Query('requestId') commandId: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    return this.call(S.deleteExperiment, { name: experimentName(p), etag, actor: principal.name, requestId: commandId }, requestId);
  }

  @Post(':policy/experiments/:experiment\\:startPreview')
  @ApiOperation({ summary: 'Start previewing: state ACTIVE, logs under FirewallPolicyPreviewLog' })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  startPreview(@Param() p: Record<string, string>, @Query('requestId') commandId: string | undefined, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string) {
    return this.call(S.startPreview, { name: experimentName(p), actor: principal.name, requestId: commandId }, requestId);
  }

  @Post(':policy/experiments/:experiment\\:stopPreview')
  @ApiOperation({ summary: 'Stop previewing: state SUSPENDED' })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  stopPreview(@Param() p: Record<string, string>, @Query('requestId') commandId: string | undefined, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string) {
    return this.call(S.stopPreview, { name: experimentName(p), actor: principal.name, requestId: commandId }, requestId);
  }

  @Post(':policy/experiments/:experiment\\:commit')
  @ApiOperation({ summary: "Atomically make the experiment's policy the live policy (etag required)" })
  @ApiBody({ type: CommitRequestDto })
  @ApiOkResponse({ type: OperationDto })
  @HttpCode(200)
  commit(
    @Param() p: Record<string, string>,
    @Body() request: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ) {
    const { etag, parentEtag, requestId: commandId } = body(request) as { etag?: string; parentEtag?: string; requestId?: string };
    return this.call(S.commit, { name: experimentName(p), etag, parentEtag, actor: principal.name, requestId: commandId }, requestId);
  }

  @Get(':policy/experiments/:experiment/events')
  @ApiOperation({ summary: "The experiment's history" })
  experimentEvents(@Param() p: Record<string, string>, @RequestId() requestId?: string) {
    return this.call(S.experimentEvents, { name: experimentName(p) }, requestId);
  }
}

@ApiTags('operations')
@ApiBearerAuth()
@Controller('v1/operations')
export class OperationsController {
  constructor(private readonly backend: BackendClient) {}

  @Get(':operation')
  @ApiOkResponse({ type: OperationDto })
  get(@Param('operation') operation: string, @RequestId() requestId?: string) {
    return this.backend.call(S.getOperation, { name: `operations/${operation}` }, requestId);
  }
}

const policyName = (p: Record<string, string>) => `projects/${p.project}/locations/${p.location}/firewallPolicies/${p.policy}`;
const experimentName = (p: Record<string, string>) => `${policyName(p)}/experiments/${p.experiment}`;
