import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  INSPECTION_PHASES,
  INSPECTION_RULE_SORT_KEYS,
  InspectionPhase,
  InspectionRuleStep,
} from '@rollout/contracts';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import type {
  CreateInspectionRuleRequest,
  EvaluateInspectionRulesRequest,
  EvaluateInspectionRulesResponse,
  InspectionRule,
  JsonPatchOperation,
  ListInspectionRulesRequest,
  ListInspectionRulesResponse,
} from '@rollout/contracts';
import type { Writable } from '../contract-binding';

/** The gateway checks the outline; the service checks each condition and action in depth. */
export class InspectionRuleStepDto implements InspectionRuleStep {
  @ApiProperty({ example: 'is-true', description: 'Condition (may start with `!`) or action name' })
  op!: string;
  @ApiPropertyOptional({
    oneOf: [
      { type: 'array', items: {} },
      { type: 'object', additionalProperties: true },
    ],
    example: ['{node.auto_discovered}'],
    description: 'A list or a dict of arguments',
  })
  args?: unknown[] | Record<string, unknown>;
  @ApiPropertyOptional({
    description:
      'A list, or exactly one `{…}` giving a list (a dict is also taken, as in Ironic: one iteration)',
  })
  loop?: unknown[] | string;
  @ApiPropertyOptional({ enum: ['any', 'all', 'first', 'last'] }) multiple?:
    'any' | 'all' | 'first' | 'last';
}

export class CreateInspectionRuleDto implements Omit<CreateInspectionRuleRequest, 'actor'> {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() uuid?: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 9999, default: 0 })
  @IsOptional()
  @IsInt()
  priority?: number;
  @ApiPropertyOptional({ maxLength: 255 }) @IsOptional() @IsString() @MaxLength(255) description?:
    string | null;
  @ApiPropertyOptional({ maxLength: 255 }) @IsOptional() @IsString() @MaxLength(255) scope?:
    string | null;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() sensitive?: boolean;
  @ApiPropertyOptional({ enum: INSPECTION_PHASES, default: 'main' })
  @IsOptional()
  @IsIn(INSPECTION_PHASES)
  phase?: InspectionPhase;
  @ApiPropertyOptional({ type: [InspectionRuleStepDto] })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  conditions?: InspectionRuleStep[];
  @ApiProperty({ type: [InspectionRuleStepDto] })
  @IsArray()
  @IsObject({ each: true })
  actions!: InspectionRuleStep[];
}

export class InspectionRuleDto extends CreateInspectionRuleDto implements Writable<InspectionRule> {
  @ApiProperty({ format: 'uuid' }) declare uuid: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true }) updated_at!: string | null;
  @ApiProperty({ description: 'Output only' }) built_in!: boolean;
  @ApiPropertyOptional({
    type: [InspectionRuleStepDto],
    nullable: true,
    description: 'null for sensitive rules',
  })
  declare conditions?: InspectionRuleStep[];
  @ApiPropertyOptional({
    type: [InspectionRuleStepDto],
    nullable: true,
    description: 'null for sensitive rules',
  })
  declare actions: InspectionRuleStep[];
}

export class IronicLinkDto {
  @ApiProperty() href!: string;
  @ApiProperty({ enum: ['self', 'bookmark'] }) rel!: string;
}

export class InspectionRuleWithLinksDto extends InspectionRuleDto {
  @ApiProperty({ type: [IronicLinkDto] }) links!: IronicLinkDto[];
}

export class ListInspectionRulesResponseDto implements Writable<ListInspectionRulesResponse> {
  @ApiProperty({
    type: [InspectionRuleWithLinksDto],
    description:
      'Without detail or fields: uuid, priority, phase, description and links (as Ironic)',
  })
  inspection_rules!: InspectionRuleWithLinksDto[];
  @ApiPropertyOptional({ description: 'The next page, when this one holds `limit` rules' })
  next?: string;
}

/** Query strings are checked loosely here and read as Ironic reads them in the controller. */
export class ListInspectionRulesQueryDto implements Pick<
  ListInspectionRulesRequest,
  'marker' | 'phase'
> {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Include every field (not with `fields`)',
  })
  @IsOptional()
  @IsString()
  detail?: string;
  @ApiPropertyOptional({
    description: 'Comma-separated fields to return (links are always returned)',
  })
  @IsOptional()
  @IsString()
  fields?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 1000 })
  @IsOptional()
  @IsString()
  limit?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Start after this rule' })
  @IsOptional()
  @IsString()
  marker?: string;
  @ApiPropertyOptional({ enum: INSPECTION_RULE_SORT_KEYS, default: 'id' })
  @IsOptional()
  @IsString()
  sort_key?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc' })
  @IsOptional()
  @IsString()
  sort_dir?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) scope?: string;
  @ApiPropertyOptional({ enum: INSPECTION_PHASES })
  @IsOptional()
  @IsIn(INSPECTION_PHASES)
  phase?: InspectionPhase;
}

export class GetInspectionRuleQueryDto {
  @ApiPropertyOptional({
    description: 'Comma-separated fields to return (links are always returned)',
  })
  @IsOptional()
  @IsString()
  fields?: string;
}

export class EvaluateInspectionRulesDto implements EvaluateInspectionRulesRequest {
  @ApiPropertyOptional({ enum: INSPECTION_PHASES, default: 'main' })
  @IsOptional()
  @IsIn(INSPECTION_PHASES)
  phase?: InspectionPhase;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  node?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  ports?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  port_groups?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  inventory?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  plugin_data?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) scope?: string;
}

export class EvaluateInspectionRulesResponseDto implements EvaluateInspectionRulesResponse {
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'Matched rules in the order they ran',
  })
  matched_rules!: { uuid: string; description: string | null }[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'JSON patch on the node' })
  node_patch!: JsonPatchOperation[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON patch per port' })
  port_patches!: Record<string, JsonPatchOperation[]>;
  @ApiProperty({ type: 'object', additionalProperties: true }) plugin_data!: Record<
    string,
    unknown
  >;
  @ApiProperty({ nullable: true, type: String }) failure!: string | null;
}

export class IronicErrorDto {
  @ApiProperty({
    description:
      'A JSON document in a string: faultcode (Client or Server), faultstring, debuginfo (null), as Ironic answers',
    example:
      '{"faultcode": "Client", "faultstring": "Rule 5e0e… could not be found.", "debuginfo": null}',
  })
  error_message!: string;
}
