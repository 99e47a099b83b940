import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
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
import type { Request } from 'express';
import { CurrentPrincipal, RequireRole } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { Config, GATEWAY_CONFIG } from '../config';
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
  constructor(
    private readonly rules: InspectionRulesClient,
    @Inject(GATEWAY_CONFIG) private readonly config: Config,
  ) {}

  @Post('inspection_rules')
  @ApiOperation({ summary: 'Create a rule (only `actions` is required)' })
  @ApiCreatedResponse({ type: InspectionRuleDto })
  @ApiResponse({ status: 400, description: 'Invalid rule, naming the problem', type: ErrorResponseDto })
  @ApiResponse({ status: 409, description: 'A rule with this uuid exists', type: ErrorResponseDto })
  create(@Body() body: CreateInspectionRuleDto, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<InspectionRule> {
    return this.rules.create(body, principal.name, requestId);
  }

  @Post('inspection_rules\\:evaluate')
  @HttpCode(200)
  @ApiOperation({ summary: 'What the rules of a phase would do to this data (nothing is changed)' })
  @ApiOkResponse({ type: EvaluateInspectionRulesResponseDto })
  evaluate(@Body() body: EvaluateInspectionRulesDto, @RequestId() requestId?: string): Promise<EvaluateInspectionRulesResponse> {
    return this.rules.evaluate(body, requestId);
  }

  @Post('inspection_rules\\:import')
  @ApiOperation({ summary: 'Import a list of rules (YAML or JSON), all or nothing' })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiBody({ schema: { type: 'array', items: { $ref: '#/components/schemas/CreateInspectionRuleDto' } } })
  @ApiCreatedResponse({ type: ListInspectionRulesResponseDto })
  @ApiResponse({ status: 400, description: 'A rule is invalid; nothing was imported', type: ErrorResponseDto })
  async import(@Req() request: Request, @CurrentPrincipal() principal: Principal, @RequestId() requestId?: string): Promise<ImportInspectionRulesResponse> {
    const body = await this.readBody(request);
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
    @Req() request: Request,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId?: string,
  ): Promise<InspectionRule> {
    let body = await this.readBody(request);
    if (typeof body === 'string') body = parseJson(body);
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

  /**
   * The JSON body when Express parsed one (application/json), else the raw text (YAML,
   * application/json-patch+json), read up to the configured body limit.
   */
  private async readBody(request: Request): Promise<unknown> {
    // Express's JSON parser has already consumed an application/json body.
    if (request.readableEnded) return request.body;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.config.BODY_LIMIT_BYTES) {
        throw StatusError.invalidArgument(`Body larger than ${this.config.BODY_LIMIT_BYTES} bytes.`);
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (!text.trim()) throw StatusError.invalidArgument('The body is empty.');
    return /json/i.test(request.headers['content-type'] ?? '') ? parseJson(text) : text;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw StatusError.invalidArgument('The body is not valid JSON.');
  }
}
