import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { EvaluateInspectionRulesResponse, ImportInspectionRulesResponse } from '@rollout/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AcceptsXAuthToken, CurrentPrincipal, RequireRole } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RequestId } from '../http/request-id.decorator';
import {
  CreateInspectionRuleDto,
  EvaluateInspectionRulesDto,
  GetInspectionRuleQueryDto,
  InspectionRuleWithLinksDto,
  ListInspectionRulesQueryDto,
  ListInspectionRulesResponseDto,
  EvaluateInspectionRulesResponseDto,
  IronicErrorDto,
} from './inspection-rules.dto';
import { InspectionRulesClient } from './inspection-rules.client';
import {
  IRONIC_MAX_VERSION_HEADER,
  IRONIC_MIN_VERSION_HEADER,
  IRONIC_VERSION_HEADER,
  IronicRule,
  ironicRule,
  nextLink,
  ruleUrl,
} from './ironic-api';
import { IronicApiVersionGuard } from './ironic-api.guard';
import { IronicErrorFilter } from './ironic-error.filter';
import {
  baseUrl,
  fieldsOf,
  importRequest,
  jsonPatch,
  listQuery,
  listRequest,
  requireUuid,
} from './ironic-request';

/** Ironic-compatible (`/v1/inspection_rules`). Rules can hold BMC credentials, hence admin only. */
@ApiTags('inspection rules')
@RequireRole('admin')
@AcceptsXAuthToken()
@UseGuards(IronicApiVersionGuard)
@UseFilters(IronicErrorFilter)
@ApiHeader({
  name: IRONIC_VERSION_HEADER,
  required: false,
  description: 'Ironic microversion (1.96 or later, or latest); absent: the maximum',
})
@ApiResponse({
  status: 406,
  description:
    'A version outside the range given by ' +
    `${IRONIC_MIN_VERSION_HEADER} and ${IRONIC_MAX_VERSION_HEADER}`,
})
@Controller('v1')
export class InspectionRulesController {
  constructor(private readonly rules: InspectionRulesClient) {}

  @Post('inspection_rules')
  @ApiOperation({ summary: 'Create a rule (only `actions` is required); Location names it' })
  @ApiCreatedResponse({ type: InspectionRuleWithLinksDto })
  @ApiResponse({
    status: 400,
    description: 'Invalid rule, naming the problem',
    type: IronicErrorDto,
  })
  @ApiResponse({ status: 409, description: 'A rule with this uuid exists', type: IronicErrorDto })
  async create(
    @Body() body: CreateInspectionRuleDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @RequestId() requestId?: string,
  ): Promise<IronicRule> {
    const created = await this.rules.create(body, principal.name, requestId);
    void reply.header('location', ruleUrl(baseUrl(request), created.uuid));
    return ironicRule(created, baseUrl(request));
  }

  @Post('inspection_rules::evaluate')
  @HttpCode(200)
  @ApiOperation({ summary: 'What the rules of a phase would do to this data (nothing is changed)' })
  @ApiOkResponse({ type: EvaluateInspectionRulesResponseDto })
  evaluate(
    @Body() body: EvaluateInspectionRulesDto,
    @RequestId() requestId?: string,
  ): Promise<EvaluateInspectionRulesResponse> {
    return this.rules.evaluate(body, requestId);
  }

  @Post('inspection_rules::import')
  @ApiOperation({ summary: 'Import a list of rules (YAML or JSON), all or nothing' })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiBody({
    schema: { type: 'array', items: { $ref: '#/components/schemas/CreateInspectionRuleDto' } },
  })
  @ApiCreatedResponse({ type: ListInspectionRulesResponseDto })
  @ApiResponse({
    status: 400,
    description: 'A rule is invalid; nothing was imported',
    type: IronicErrorDto,
  })
  async import(
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ): Promise<ImportInspectionRulesResponse> {
    return this.rules.import(importRequest(body), principal.name, requestId);
  }

  @Get('inspection_rules')
  @ApiOperation({
    summary:
      'List rules, paged and sorted as in Ironic (every field with detail=true, or those named by fields)',
  })
  @ApiOkResponse({ type: ListInspectionRulesResponseDto })
  async list(
    @Query() query: ListInspectionRulesQueryDto,
    @Req() request: FastifyRequest,
    @RequestId() requestId?: string,
  ): Promise<{ inspection_rules: IronicRule[]; next?: string }> {
    const read = listQuery(query);
    const { inspection_rules: page } = await this.rules.list(listRequest(read), requestId);
    const base = baseUrl(request);
    const next = nextLink(base, read, page);
    return {
      inspection_rules: page.map((rule) => ironicRule(rule, base, read.fields)),
      ...(next ? { next } : {}),
    };
  }

  @Get('inspection_rules/:uuid')
  @ApiOperation({ summary: 'One rule (a sensitive rule has null conditions and actions)' })
  @ApiOkResponse({ type: InspectionRuleWithLinksDto })
  @ApiResponse({
    status: 400,
    description: 'Not a UUID, or an unknown field',
    type: IronicErrorDto,
  })
  @ApiResponse({ status: 404, description: 'No such rule', type: IronicErrorDto })
  async get(
    @Param('uuid') uuid: string,
    @Query() query: GetInspectionRuleQueryDto,
    @Req() request: FastifyRequest,
    @RequestId() requestId?: string,
  ): Promise<IronicRule> {
    requireUuid(uuid);
    const fields = fieldsOf(query.fields);
    return ironicRule(await this.rules.get(uuid, requestId), baseUrl(request), fields);
  }

  @Patch('inspection_rules/:uuid')
  @ApiOperation({ summary: 'Change a rule with a JSON Patch (RFC 6902), as in Ironic' })
  @ApiConsumes('application/json', 'application/json-patch+json')
  @ApiBody({
    schema: {
      type: 'array',
      items: { type: 'object', example: { op: 'replace', path: '/priority', value: 10 } },
    },
  })
  @ApiOkResponse({ type: InspectionRuleWithLinksDto })
  @ApiResponse({
    status: 400,
    description: 'Not a UUID, built_in, sensitive → false, priority out of range, bad patch',
    type: IronicErrorDto,
  })
  @ApiResponse({ status: 404, description: 'No such rule', type: IronicErrorDto })
  async patch(
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @RequestId() requestId?: string,
  ): Promise<IronicRule> {
    requireUuid(uuid);
    const patch = jsonPatch(body);
    return ironicRule(
      await this.rules.patch(uuid, patch, principal.name, requestId),
      baseUrl(request),
    );
  }

  @Delete('inspection_rules/:uuid')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a rule (built-in rules cannot be deleted)' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 400, description: 'Not a UUID, or a built-in rule', type: IronicErrorDto })
  @ApiResponse({ status: 404, description: 'No such rule', type: IronicErrorDto })
  delete(
    @Param('uuid') uuid: string,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ): Promise<void> {
    requireUuid(uuid);
    return this.rules.delete(uuid, principal.name, requestId);
  }

  @Delete('inspection_rules')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete every rule but the built-in ones' })
  @ApiNoContentResponse()
  deleteAll(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ): Promise<void> {
    return this.rules.deleteAll(principal.name, requestId);
  }
}
