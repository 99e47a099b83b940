import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_DIFFERING_REGIONS, MAX_EXPERIMENTS_PER_POLICY } from '@rollout/contracts';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/**
 * HTTP shapes of experiment.v1. The gateway checks the outline of a request; the
 * experiment-service checks every rule in depth (one validation for live and experiment
 * policies) and names each bad field. Output-only fields sent back are accepted and ignored.
 */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export class Layer4ConfigDto {
  @ApiProperty({
    example: 'tcp',
    description: 'tcp, udp, icmp, icmpv6, sctp, esp, ah, all, or a number 0-255',
  })
  ipProtocol!: string;
  @ApiPropertyOptional({ example: ['443', '8000-8080'], description: 'Only for tcp, udp and sctp' })
  ports?: string[];
}
export class RuleMatchDto {
  @ApiPropertyOptional({
    example: ['10.0.0.0/8'],
    description: 'IPv4/IPv6 addresses or CIDR ranges',
  })
  srcIpRanges?: string[];
  @ApiPropertyOptional({ example: ['2001:db8::/32'] }) destIpRanges?: string[];
  @ApiPropertyOptional({ type: [Layer4ConfigDto] }) layer4Configs?: Layer4ConfigDto[];
}
export class FirewallRuleDto {
  @ApiProperty({ minimum: 0, maximum: 65535, description: 'Lower wins; unique within a policy' })
  priority!: number;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({ type: RuleMatchDto }) match!: RuleMatchDto;
  @ApiPropertyOptional() targetTags?: string[];
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional() disabled?: boolean;
}

/** A live policy, as written by a client (create and update) and as returned. */
export class FirewallPolicyDto {
  @ApiPropertyOptional({
    readOnly: true,
    example: 'projects/acme/locations/global/firewallPolicies/web',
  })
  @IsOptional()
  @IsString()
  name?: string;
  @ApiPropertyOptional({ maxLength: 63 }) @IsOptional() @IsString() displayName?: string;
  @ApiPropertyOptional({ maxLength: 2048 }) @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ type: [FirewallRuleDto], description: 'No rules: the no-op policy' })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  rules?: FirewallRuleDto[];
  @ApiPropertyOptional({ description: 'On update: must be the current etag (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() createTime?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() updateTime?: string;
}

export class PreviewMetadataDto {
  @ApiProperty({ enum: ['STATE_UNDEFINED', 'ACTIVE', 'SUSPENDED'] }) state!: string;
  @ApiProperty({ example: 'FirewallPolicyPreviewLog' }) logPrefix!: string;
  @ApiPropertyOptional() startTime?: string;
  @ApiPropertyOptional() stopTime?: string;
}

/** One readiness gate: exactly one field set (docs/readiness-gates.md). */
export class ReadinessGateDto {
  @ApiPropertyOptional({
    example: '24h',
    description:
      'The previewed traffic spans at least this much event time: a whole number of s, m, h or d',
  })
  minPreviewDuration?: string;
  @ApiPropertyOptional({
    example: 100000,
    minimum: 1,
    description: 'At least this many events evaluated',
  })
  minEvaluated?: number;
  @ApiPropertyOptional({
    example: 0.001,
    minimum: 0,
    maximum: 1,
    description: 'allow→deny at most this share of evaluated (0.001 is 0.1%)',
  })
  maxAllowToDenyShare?: number;
  @ApiPropertyOptional({
    example: '0.0.0.0/0',
    description: 'No deny→allow from a source in this CIDR range',
  })
  noDenyToAllowFrom?: string;
  @ApiPropertyOptional({
    example: 0,
    minimum: 0,
    description:
      'At most this many messages lost or possibly lost (dead-lettered, dropped by TRAFFIC, undetermined)',
  })
  maxCompletenessLoss?: number;
}
export class PreviewStopAfterDto {
  @ApiPropertyOptional({
    example: '24h',
    description: 'Time since the preview started: a whole number of s, m, h or d',
  })
  duration?: string;
  @ApiPropertyOptional({
    example: 1000000,
    minimum: 1,
    description: 'Events evaluated by this preview run',
  })
  evaluatedEvents?: number;
}
export class PreviewBreakerDto {
  @ApiProperty({
    example: 0.01,
    minimum: 0,
    maximum: 1,
    description: 'Stop when allowToDeny / evaluated is above this',
  })
  maxAllowToDenyShare!: number;
  @ApiPropertyOptional({
    example: 100,
    minimum: 1,
    description: 'Events to evaluate before the breaker may trip (default 100)',
  })
  minEvaluated?: number;
}
export class AnalysisVerdictDto {
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The deciding rule's priority; null when the implied rule decided",
  })
  rulePriority!: number | null;
  @ApiProperty({
    description: 'No rule matched: the implied rule decided (INGRESS deny, EGRESS allow)',
  })
  implied!: boolean;
}
export class AnalysisLayer4Dto {
  @ApiProperty({
    example: ['tcp'],
    description: '`all`, protocol names, numbers ("47") or number ranges ("18-49")',
  })
  ipProtocols!: string[];
  @ApiPropertyOptional({
    example: ['22', '8000-8080'],
    description: 'Destination ports; absent: every port and connections without one',
  })
  ports?: string[];
  @ApiPropertyOptional({
    description: 'With ports: connections without a destination port are in the region too',
  })
  portless?: boolean;
}
export class AnalysisTargetDto {
  @ApiPropertyOptional({
    example: ['web'],
    description: 'The connection carries none of these tags',
  })
  tagsAbsent?: string[];
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'array', items: { type: 'string' } },
    example: [['db']],
    description: 'For each list, the connection carries at least one of its tags',
  })
  anyTagOf?: string[][];
}
export class DifferingRegionDto {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ example: ['10.0.0.0/8'], description: 'CIDR ranges, IPv4 and IPv6' })
  srcIpRanges!: string[];
  @ApiProperty({ example: ['0.0.0.0/0', '::/0'] }) destIpRanges!: string[];
  @ApiProperty({
    type: [AnalysisLayer4Dto],
    description: "The connection's protocol and destination port lie in one of these",
  })
  layer4Configs!: AnalysisLayer4Dto[];
  @ApiPropertyOptional({
    type: AnalysisTargetDto,
    description: 'Absent: whatever target tags the connection carries',
  })
  target?: AnalysisTargetDto;
  @ApiProperty({
    type: AnalysisVerdictDto,
    description: 'The live policy rule that decides every connection of the region',
  })
  liveVerdict!: AnalysisVerdictDto;
  @ApiProperty({
    type: AnalysisVerdictDto,
    description: "The experiment's rule that decides every connection of the region",
  })
  experimentVerdict!: AnalysisVerdictDto;
}
export class ShadowedRuleDto {
  @ApiProperty() priority!: number;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({
    type: [Number],
    example: [100, 200],
    description:
      "The experiment's higher-priority rules that decide the connections this rule matches",
  })
  coveredBy!: number[];
}
export class ExperimentAnalysisDto {
  @ApiProperty({ description: "The live policy's etag the experiment was compared with" })
  livePolicyEtag!: string;
  @ApiProperty({
    type: [ShadowedRuleDto],
    description:
      'Enabled experiment rules that decide no connection: higher-priority rules match all they match',
  })
  shadowedRules!: ShadowedRuleDto[];
  @ApiProperty({
    type: [DifferingRegionDto],
    description: `Where the experiment and the live policy act differently: exact, disjoint regions, at most ${MAX_DIFFERING_REGIONS}`,
  })
  differingRegions!: DifferingRegionDto[];
  @ApiProperty({ description: 'Differing regions not listed (past the limit)' })
  regionsOmitted!: number;
  @ApiProperty({
    description:
      'false when the policies were too intricate to analyse within the work bound: then nothing is listed',
  })
  complete!: boolean;
}

export class ExperimentDto {
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({
    type: FirewallPolicyDto,
    description:
      "The full policy under test; its name is the live policy's (filled in when omitted)",
  })
  @IsOptional()
  @IsObject()
  firewallPolicy?: FirewallPolicyDto;
  @ApiPropertyOptional({
    type: PreviewMetadataDto,
    readOnly: true,
    description: 'Absent until the first startPreview',
  })
  @IsOptional()
  @IsObject()
  previewMetadata?: PreviewMetadataDto;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'At most 64 entries, keys up to 63 characters, 16 KiB in all',
  })
  @IsOptional()
  @IsObject()
  annotations?: Record<string, string>;
  @ApiPropertyOptional({
    type: [ReadinessGateDto],
    description:
      'Conditions shown in the preview report and required by a commit with requireGates (at most 20)',
  })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  readinessGates?: ReadinessGateDto[];
  @ApiPropertyOptional({
    type: PreviewStopAfterDto,
    description: 'The evaluator stops the preview by itself after this (whichever comes first)',
  })
  @IsOptional()
  @IsObject()
  stopAfter?: PreviewStopAfterDto;
  @ApiPropertyOptional({
    type: PreviewBreakerDto,
    description:
      'The evaluator stops the preview by itself when allow→deny exceeds this share of evaluated',
  })
  @IsOptional()
  @IsObject()
  breaker?: PreviewBreakerDto;
  @ApiPropertyOptional({ description: 'On update: must be the current etag (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() createTime?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() updateTime?: string;
  @ApiPropertyOptional({
    type: ExperimentAnalysisDto,
    readOnly: true,
    description:
      'Since experiment.v1 1.3.0: static analysis against the live policy, computed at create and update (see docs/static-analysis.md)',
  })
  @IsOptional()
  @IsObject()
  analysis?: ExperimentAnalysisDto;
}

export class CommitRequestDto {
  @ApiProperty({ description: "The experiment's current etag (required)" })
  @IsString()
  @IsNotEmpty()
  etag!: string;
  @ApiPropertyOptional({
    description: "The live policy's current etag: commit only onto that version",
  })
  @IsOptional()
  @IsString()
  livePolicyEtag?: string;
  @ApiPropertyOptional({
    deprecated: true,
    description:
      'Deprecated since experiment.v1 1.1.0 (sunset 2027-12-31): the old name of livePolicyEtag, same meaning',
  })
  @IsOptional()
  @IsString()
  parentEtag?: string;
  @ApiPropertyOptional({
    description: 'AIP-155: a retry with the same id returns the first result',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
  @ApiPropertyOptional({
    description:
      'Refuse (400 FAILED_PRECONDITION, one PreconditionFailure violation per unmet gate) unless every readiness gate holds in the preview report now',
  })
  @IsOptional()
  @IsBoolean()
  requireGates?: boolean;
  @ApiPropertyOptional({
    description:
      "The preview report's reportEtag the decision was made on: refuse (409 ABORTED) if its configuration or a gate's verdict changed since",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  reportEtag?: string;
}

/** AIP-155 request id, on every mutation. */
export class MutationQueryDto {
  @ApiPropertyOptional({
    description:
      'AIP-155: a retry with the same id returns the first result and does not act twice',
    example: '6f1c…',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
}
export class StopPreviewQueryDto extends MutationQueryDto {
  @ApiPropertyOptional({
    description: "Why: recorded on the PreviewStopped event and shown in the experiment's history",
    maxLength: 500,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}
export class CreatePolicyQueryDto extends MutationQueryDto {
  @ApiProperty({ description: 'AIP-122 id: ^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$' })
  @IsString()
  @MaxLength(63)
  firewallPolicyId!: string;
}
export class CreateExperimentQueryDto extends MutationQueryDto {
  @ApiProperty({
    description: `AIP-122 id; at most ${MAX_EXPERIMENTS_PER_POLICY} experiments per policy (the next is 429 RESOURCE_EXHAUSTED)`,
  })
  @IsString()
  @MaxLength(63)
  experimentId!: string;
}
export class UpdateQueryDto extends MutationQueryDto {
  @ApiPropertyOptional({
    description: 'Comma-separated fields (AIP-134); without it, the fields present in the body',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  updateMask?: string;
}
export class DeleteQueryDto extends MutationQueryDto {
  @ApiPropertyOptional({ description: 'Delete only this version (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
}
export class ListQueryDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 1000, description: 'Default 50, at most 500' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1000)
  pageSize?: number;
  @ApiPropertyOptional({ description: 'The nextPageToken of the previous page of the same list' })
  @IsOptional()
  @IsString()
  pageToken?: string;
}
export class ListExperimentsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    example: 'previewMetadata.state = ACTIVE',
    description:
      'AIP-160 subset: previewMetadata.state (or preview_metadata.state) = / != STATE, joined by AND',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  filter?: string;
}

export class ListPoliciesResponseDto {
  @ApiProperty({ type: [FirewallPolicyDto] }) firewallPolicies!: FirewallPolicyDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
export class ListExperimentsResponseDto {
  @ApiProperty({ type: [ExperimentDto] }) experiments!: ExperimentDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
export class HistoryEventDto {
  @ApiProperty({ example: 'PreviewStarted' }) type!: string;
  @ApiProperty() time!: string;
  @ApiProperty({ description: "The aggregate's version after the event" }) version!: number;
  @ApiProperty({ description: 'Who asked' }) actor!: string;
  @ApiPropertyOptional() requestId?: string;
  @ApiPropertyOptional({
    example: 'stopAfter: 1000 events evaluated, the limit is 1000',
    description: 'Why, when the command said (an automatic stop always does)',
  })
  reason?: string;
}
export class HistoryResponseDto {
  @ApiProperty({ type: [HistoryEventDto] }) events!: HistoryEventDto[];
}
export class OperationDto {
  @ApiProperty({ example: 'operations/0b9d6c1e-5f7a-4f0e-9d3c-2b1a0e9f8c7d' }) name!: string;
  @ApiProperty() done!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '@type, verb, target, createTime, endTime',
  })
  metadata!: object;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The experiment (for commit, the live policy; for delete, Empty)',
  })
  response?: object;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'google.rpc.Status',
  })
  error?: object;
}
