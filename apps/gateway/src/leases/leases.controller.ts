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
import { plain } from '../http/plain';
import { RequestId } from '../http/request-id.decorator';
import {
  CreateLeaseDto,
  CreateLeaseQueryDto,
  LeaseDto,
  ListLeasesQueryDto,
  ListLeasesResponseDto,
  PageQueryDto,
  UpdateLeaseDto,
} from './leases.dto';
import { ListDecisionsResponseDto } from './lease-decisions.dto';
import { LeasePath, LeasesClient } from './leases.client';

/**
 * Each change is decided by the enforcement filter chain: a refusal is 403 naming the filter
 * (ENFORCEMENT_DENIED, or ENFORCEMENT_FILTER_FAILED with its `status_on_error`). An update changing
 * neither dates nor reservations runs no filter (docs/blazar-compatibility.md).
 */
@ApiTags('leases')
@ApiParam({ name: 'project' })
@ApiResponse({
  status: 400,
  description: 'INVALID_ARGUMENT: a bad or unknown field (named), id, filter or page token',
})
@ApiResponse({ status: 404, description: 'NOT_FOUND' })
@Controller('v1/projects/:project/leases')
export class LeasesController {
  constructor(private readonly leases: LeasesClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Create a lease: PENDING (ACTIVE when it starts now) if every filter allows, else 403 and an ERROR lease',
  })
  @ApiBody({ type: CreateLeaseDto })
  @ApiOkResponse({ type: LeaseDto })
  @ApiResponse({
    status: 403,
    description:
      "PERMISSION_DENIED: the filter's message; details name the filter (reason ENFORCEMENT_DENIED, or ENFORCEMENT_FILTER_FAILED when it could not decide)",
  })
  @ApiResponse({
    status: 503,
    description:
      "UNAVAILABLE (or the ExternalService filter's other status_on_error): the filter's service failed; reason ENFORCEMENT_FILTER_FAILED",
  })
  @ApiResponse({ status: 409, description: 'ALREADY_EXISTS: the leaseId is taken' })
  create(
    @Param('project') project: string,
    @Query() query: CreateLeaseQueryDto,
    @Body() lease: CreateLeaseDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.leases.create(project, query.leaseId, plain(lease), {
      actor: principal.name,
      traceId,
    });
  }

  @Get()
  @ApiOperation({ summary: 'List leases by id, optionally only some statuses' })
  @ApiOkResponse({ type: ListLeasesResponseDto })
  list(
    @Param('project') project: string,
    @Query() query: ListLeasesQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.leases.list(
      project,
      {
        statuses: query.status,
        filter: query.filter,
        pageSize: query.pageSize,
        pageToken: query.pageToken,
      },
      traceId,
    );
  }

  @Get(':lease')
  @ApiOperation({ summary: 'Get a lease: dates, reservations and status' })
  @ApiParam({ name: 'lease' })
  @ApiOkResponse({ type: LeaseDto })
  get(@Param() path: LeasePath, @RequestId() traceId?: string) {
    return this.leases.get(path, traceId);
  }

  @Patch(':lease')
  @ApiParam({ name: 'lease' })
  @ApiOperation({
    summary:
      'Change dates, name or reservations (check_update, unless dates and reservations stay as they are); refused: 403 and the lease stays exactly as it was',
  })
  @ApiBody({ type: UpdateLeaseDto })
  @ApiOkResponse({ type: LeaseDto })
  @ApiResponse({
    status: 403,
    description:
      "PERMISSION_DENIED: the filter's message; details name the filter (reason ENFORCEMENT_DENIED, or ENFORCEMENT_FILTER_FAILED when it could not decide)",
  })
  @ApiResponse({
    status: 503,
    description:
      "UNAVAILABLE (or the ExternalService filter's other status_on_error): the filter's service failed; reason ENFORCEMENT_FILTER_FAILED",
  })
  @ApiResponse({
    status: 400,
    description: 'FAILED_PRECONDITION: the lease is not PENDING or ACTIVE',
  })
  update(
    @Param() path: LeasePath,
    @Body() lease: UpdateLeaseDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.leases.update(path, plain(lease), { actor: principal.name, traceId });
  }

  @Post(`${paramBeforeVerb('lease')}::end`)
  @HttpCode(200)
  @ApiParam({ name: 'lease' })
  @ApiOperation({
    summary: 'End the lease now: TERMINATED, and on_end goes to the filters (once per lease)',
  })
  @ApiOkResponse({ type: LeaseDto })
  end(
    @Param() path: LeasePath,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.leases.end(path, { actor: principal.name, traceId });
  }

  @Delete(':lease')
  @ApiParam({ name: 'lease' })
  @ApiOperation({
    summary:
      'Delete the lease (a PENDING or ACTIVE one is ended first: on_end); its decisions stay in the audit trail',
  })
  @ApiOkResponse({ description: 'Empty' })
  delete(
    @Param() path: LeasePath,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.leases.delete(path, { actor: principal.name, traceId });
  }

  @Get(':lease/decisions')
  @ApiParam({ name: 'lease' })
  @ApiOperation({
    summary:
      "Every decision of the chain about the lease, oldest first: hook, result, filter, message, each filter's step, time, actor",
  })
  @ApiOkResponse({ type: ListDecisionsResponseDto })
  decisions(@Param() path: LeasePath, @Query() query: PageQueryDto, @RequestId() traceId?: string) {
    return this.leases.decisions(
      path,
      { pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }
}
