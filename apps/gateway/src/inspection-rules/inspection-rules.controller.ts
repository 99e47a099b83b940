import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  EvaluateInspectionRulesResponse,
  ImportInspectionRulesResponse,
  InspectionRule,
  JsonPatchOperation,
  ListInspectionRulesResponse,
  StatusError,
} from '@rollout/contracts';
import { CurrentPrincipal, RequireRole } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RequestId } from '../http/request-id.decorator';
import { ErrorResponseDto } from '../http/error-response.dto';
import {
  CreateInspectionRuleDto,
  EvaluateInspectionRulesDto,
  InspectionRuleDto,
  ListInspectionRulesQueryDto,
  ListInspectionRulesResponseDto,
  EvaluateInspectionRulesResponseDto,
} from './inspection-rules.dto';
import { InspectionRulesClient } from './inspection-rules.client';

/**
 * Ironic-compatible inspection rules (`/v1/inspection_rules`, snake_case fields). Rules can
 * hold BMC credentials, hence admin only. Custom methods `:evaluate` and `:import` use an
 * escaped colon so Express matches them literally.
 */
@ApiTags('inspection rules')
@RequireRole('admin')
@Controller('v1')
export class InspectionRulesController {
  constructor(private readonly rules: InspectionRulesClient) {}

  @Post('inspection_rules')
  @ApiOperation({ summary: 'Create a rule (only `actions` is required)' })
  @ApiCreatedResponse({ type: InspectionRuleDto })
  @ApiResponse({ status: 400, description: 'Invalid rule, naming the problem', type: ErrorResponseDto })
  @ApiResponse({ status: 409, description: 'A rule with this uuid exists', type: ErrorResponseDto })
  create(@Body() body: CreateInspectionRuleDto, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<InspectionRule> {
    return this.rules.create(body, principal.name, requestId);
  }

  @Post('inspection_rules::evaluate')
  @HttpCode(200)
  @ApiOperation({ summary: 'What the rules of a phase would do to this data (nothing is changed)' })
  @ApiOkResponse({ type: EvaluateInspectionRulesResponseDto })
  evaluate(@Body() body: EvaluateInspectionRulesDto, @RequestId() requestId?: string): Promise<EvaluateInspectionRulesResponse> {
    return this.rules.evaluate(body, requestId);
  }

  @Post('inspection_rules::import')
  @ApiOperation({ summary: 'Import a list of rules (YAML or JSON), all or nothing' })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiBody({ schema: { type: 'array', items: { $ref: '#/components/schemas/CreateInspectionRuleDto' } } })
  @ApiCreatedResponse({ type: ListInspectionRulesResponseDto })
  @ApiResponse({ status: 400, description: 'A rule is invalid; nothing was imported', type: ErrorResponseDto })
  async import(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<ImportInspectionRulesResponse> {
    requireBody(body);
    return this.rules.import(typeof body === 'string' ? { yaml: body } : { rules: body }, principal.name, requestId);
  }

  @Get('inspection_rules')
  @ApiOperation({ summary: 'List rules (conditions and actions only with detail=true)' })
  @ApiOkResponse({ type: ListInspectionRulesResponseDto })
  list(@Query() query: ListInspectionRulesQueryDto, @RequestId() requestId?: string): Promise<ListInspectionRulesResponse> {
    const detail = query.detail !== undefined && ['true', '1'].includes(query.detail.toLowerCase());
    return this.rules.list({ detail, scope: query.scope, phase: query.phase }, requestId);
  }

  @Get('inspection_rules/:uuid')
  @ApiOperation({ summary: 'One rule (a sensitive rule has null conditions and actions)' })
  @ApiOkResponse({ type: InspectionRuleDto })
  @ApiResponse({ status: 404, description: 'No such rule', type: ErrorResponseDto })
  get(@Param('uuid') uuid: string, @RequestId() requestId?: string): Promise<InspectionRule> {
    return this.rules.get(uuid, requestId);
  }

  @Patch('inspection_rules/:uuid')
  @ApiOperation({ summary: 'Change a rule with a JSON Patch (RFC 6902), as in Ironic' })
  @ApiConsumes('application/json', 'application/json-patch+json')
  @ApiBody({ schema: { type: 'array', items: { type: 'object', example: { op: 'replace', path: '/priority', value: 10 } } } })
  @ApiOkResponse({ type: InspectionRuleDto })
  @ApiResponse({ status: 400, description: 'built_in, sensitive → false, priority out of range, bad patch', type: ErrorResponseDto })
  @ApiResponse({ status: 404, description: 'No such rule', type: ErrorResponseDto })
  async patch(
    @Param('uuid') uuid: string,
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ): Promise<InspectionRule> {
    requireBody(body);
    if (!Array.isArray(body)) throw StatusError.invalidArgument('A JSON Patch is a list of operations.');
    return this.rules.patch(uuid, body as JsonPatchOperation[], principal.name, requestId);
  }

  @Delete('inspection_rules/:uuid')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a rule (built-in rules cannot be deleted)' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 400, description: 'Built-in rule', type: ErrorResponseDto })
  @ApiResponse({ status: 404, description: 'No such rule', type: ErrorResponseDto })
  delete(@Param('uuid') uuid: string, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<void> {
    return this.rules.delete(uuid, principal.name, requestId);
  }

  @Delete('inspection_rules')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete every rule but the built-in ones' })
  @ApiNoContentResponse()
  deleteAll(@CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<void> {
    return this.rules.deleteAll(principal.name, requestId);
  }

}

/** YAML arrives as text, JSON parsed; either way there must be something. */
function requireBody(body: unknown): void {
  if (body === undefined || body === null || (typeof body === 'string' && !body.trim())) {
    throw StatusError.invalidArgument('The body is empty.');
  }
}
