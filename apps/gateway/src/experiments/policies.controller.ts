import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RequestId } from '../http/request-id.decorator';
import { plain } from '../http/plain';
import { caller } from './command-caller';
import {
  DeleteQueryDto,
  HistoryResponseDto,
  ListQueryDto,
  UpdateQueryDto,
} from './experiment-operations.dto';
import {
  CreatePolicyQueryDto,
  FirewallPolicyDto,
  ListPoliciesResponseDto,
} from './firewall-policy.dto';
import { ExperimentsClient, PolicyPath } from './experiments.client';
import { POLICIES_ROUTE } from '../http/resource-routes';
import { publishedOperationId } from './published-operation-id';
import { FirewallPolicyApi } from './firewall-policy-api';

/** Live firewall policies: the experiments' parents, and what a commit replaces. */
@FirewallPolicyApi()
@Controller(POLICIES_ROUTE)
export class PoliciesController {
  constructor(private readonly experiments: ExperimentsClient) {}

  @Post()
  @ApiOperation({
    operationId: publishedOperationId('createPolicy'),
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
  @ApiOperation({
    operationId: publishedOperationId('listPolicies'),
    summary: 'List live policies, by name',
  })
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
  @ApiOperation({
    operationId: publishedOperationId('getPolicy'),
    summary: 'Get a live policy (its etag guards updates, deletion and commits)',
  })
  @ApiParam({ name: 'policy' })
  @ApiOkResponse({ type: FirewallPolicyDto })
  getPolicy(@Param() path: PolicyPath, @RequestId() traceId?: string) {
    return this.experiments.getPolicy(path, traceId);
  }

  @Patch(':policy')
  @ApiParam({ name: 'policy' })
  @ApiOperation({
    operationId: publishedOperationId('updatePolicy'),
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
  @ApiOperation({
    operationId: publishedOperationId('deletePolicy'),
    summary: 'Delete a live policy and, with it, every experiment of it',
  })
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
  @ApiOperation({
    operationId: publishedOperationId('policyEvents'),
    summary: "The live policy's history: type, time, version, actor, request id",
  })
  @ApiOkResponse({ type: HistoryResponseDto })
  policyEvents(@Param() path: PolicyPath, @RequestId() traceId?: string) {
    return this.experiments.policyEvents(path, traceId);
  }
}
