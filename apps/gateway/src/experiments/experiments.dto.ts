import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI shapes of experiment.v1 (the service validates every field and names bad ones). */
export class Layer4ConfigDto {
  @ApiProperty({ example: 'tcp' }) ipProtocol!: string;
  @ApiPropertyOptional({ example: ['443', '8000-8080'] }) ports?: string[];
}
export class RuleMatchDto {
  @ApiPropertyOptional({ example: ['10.0.0.0/8'] }) srcIpRanges?: string[];
  @ApiPropertyOptional({ example: ['2001:db8::/32'] }) destIpRanges?: string[];
  @ApiPropertyOptional({ type: [Layer4ConfigDto] }) layer4Configs?: Layer4ConfigDto[];
}
export class FirewallRuleDto {
  @ApiProperty({ minimum: 0, maximum: 65535, description: 'Lower wins; unique within a policy' }) priority!: number;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({ type: RuleMatchDto }) match!: RuleMatchDto;
  @ApiPropertyOptional() targetTags?: string[];
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional() disabled?: boolean;
}
export class FirewallPolicyDto {
  @ApiProperty({ readOnly: true, example: 'projects/acme/locations/global/firewallPolicies/web' }) name!: string;
  @ApiPropertyOptional() displayName?: string;
  @ApiPropertyOptional() description?: string;
  @ApiProperty({ type: [FirewallRuleDto] }) rules!: FirewallRuleDto[];
  @ApiProperty({ description: 'Send it back on update/delete to guard against lost updates' }) etag!: string;
  @ApiProperty({ readOnly: true }) createTime!: string;
  @ApiProperty({ readOnly: true }) updateTime!: string;
}
export class PreviewMetadataDto {
  @ApiProperty({ enum: ['STATE_UNDEFINED', 'ACTIVE', 'SUSPENDED'] }) state!: string;
  @ApiProperty({ example: 'FirewallPolicyPreviewLog' }) logPrefix!: string;
  @ApiPropertyOptional() startTime?: string;
  @ApiPropertyOptional() stopTime?: string;
}
export class ExperimentDto {
  @ApiProperty({ readOnly: true }) name!: string;
  @ApiProperty({ type: FirewallPolicyDto, description: 'The full policy under test; name = the live policy' }) firewallPolicy!: FirewallPolicyDto;
  @ApiPropertyOptional({ type: PreviewMetadataDto, readOnly: true }) previewMetadata?: PreviewMetadataDto;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'At most 64 entries, keys up to 63 characters, 16 KiB in all' })
  annotations?: Record<string, string>;
  @ApiProperty() etag!: string;
  @ApiProperty({ readOnly: true }) createTime!: string;
  @ApiProperty({ readOnly: true }) updateTime!: string;
}
export class CommitRequestDto {
  @ApiProperty({ description: "The experiment's current etag" }) etag!: string;
  @ApiPropertyOptional({ description: "The live policy's current etag" }) parentEtag?: string;
}
export class OperationDto {
  @ApiProperty({ example: 'operations/0b9d6c1e-...' }) name!: string;
  @ApiProperty() done!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: object;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The experiment (or, for commit, the live policy)' }) response?: object;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) error?: object;
}
