import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PREVIEW_LOGS_DEFAULT_PAGE_SIZE, PREVIEW_LOGS_MAX_PAGE_SIZE, PREVIEW_REPORT_TOP } from '@rollout/contracts';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** HTTP shapes of preview.v1 (previewLogs and previewReport of an experiment). */

export class PreviewLogsQueryDto {
  @ApiPropertyOptional({ description: 'Only records whose verdict changed (the live and the experiment actions differ)', example: true })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  changedOnly?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: PREVIEW_LOGS_MAX_PAGE_SIZE, description: `Default ${PREVIEW_LOGS_DEFAULT_PAGE_SIZE}, at most ${PREVIEW_LOGS_MAX_PAGE_SIZE}` })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(PREVIEW_LOGS_MAX_PAGE_SIZE)
  pageSize?: number;

  @ApiPropertyOptional({ description: 'The nextPageToken of the previous page of the same query' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  pageToken?: string;
}

export class PreviewVerdictDto {
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'The deciding rule; null when the implied rule decided' }) rulePriority!: number | null;
  @ApiProperty({ description: 'No rule matched: INGRESS deny, EGRESS allow' }) implied!: boolean;
}

export class PreviewConnectionDto {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ example: '198.51.100.7' }) srcIp!: string;
  @ApiProperty({ example: '10.0.0.5' }) destIp!: string;
  @ApiProperty({ oneOf: [{ type: 'string', example: 'tcp' }, { type: 'integer', minimum: 0, maximum: 255 }] }) protocol!: string | number;
  @ApiPropertyOptional() srcPort?: number;
  @ApiPropertyOptional({ example: 22 }) destPort?: number;
  @ApiPropertyOptional({ type: [String] }) targetTags?: string[];
}

export class PreviewLogRecordDto {
  @ApiProperty({ example: 'FirewallPolicyPreviewLog' }) logPrefix!: string;
  @ApiProperty({ description: 'Deterministic: from the traffic event id, the experiment and its etag' }) id!: string;
  @ApiProperty({ example: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh' }) experiment!: string;
  @ApiProperty({ example: 'projects/acme/locations/global/firewallPolicies/edge' }) firewallPolicy!: string;
  @ApiProperty() experimentEtag!: string;
  @ApiProperty() livePolicyEtag!: string;
  @ApiProperty() trafficEventId!: string;
  @ApiProperty({ description: 'The traffic event time (RFC 3339)' }) eventTime!: string;
  @ApiProperty({ type: PreviewConnectionDto }) connection!: PreviewConnectionDto;
  @ApiProperty({ type: PreviewVerdictDto }) liveResult!: PreviewVerdictDto;
  @ApiProperty({ type: PreviewVerdictDto }) experimentResult!: PreviewVerdictDto;
  @ApiProperty() changed!: boolean;
}

export class ListPreviewLogsResponseDto {
  @ApiProperty({ type: [PreviewLogRecordDto], description: 'Newest configuration (experiment etag × live policy etag) first; no record twice across pages' })
  previewLogs!: PreviewLogRecordDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}

export class RuleCountDto {
  @ApiProperty({ type: Number, nullable: true }) rulePriority!: number | null;
  @ApiProperty() implied!: boolean;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({ description: 'Events this rule decided' }) count!: number;
}

export class ChangedSourceDto {
  @ApiProperty() srcIp!: string;
  @ApiProperty() count!: number;
}

export class ChangedDestinationPortDto {
  @ApiProperty({ example: 'tcp' }) protocol!: string;
  @ApiProperty({ example: 22 }) destPort!: number;
  @ApiProperty() count!: number;
}

export class PreviewConfigurationReportDto {
  @ApiProperty() experimentEtag!: string;
  @ApiProperty() livePolicyEtag!: string;
  @ApiProperty({ description: 'evaluated = allowToDeny + denyToAllow + unchangedAllow + unchangedDeny' }) evaluated!: number;
  @ApiProperty({ description: 'changed = allowToDeny + denyToAllow' }) changed!: number;
  @ApiProperty() allowToDeny!: number;
  @ApiProperty() denyToAllow!: number;
  @ApiProperty() unchangedAllow!: number;
  @ApiProperty() unchangedDeny!: number;
  @ApiProperty({ type: [RuleCountDto], description: 'Deciding rules of the live policy, most frequent first' }) liveRules!: RuleCountDto[];
  @ApiProperty({ type: [RuleCountDto], description: "Deciding rules of the experiment's policy, most frequent first" }) experimentRules!: RuleCountDto[];
  @ApiProperty({ type: [ChangedSourceDto], description: `The ${PREVIEW_REPORT_TOP} sources with the most changed verdicts` }) topChangedSources!: ChangedSourceDto[];
  @ApiProperty({ type: [ChangedDestinationPortDto], description: `The ${PREVIEW_REPORT_TOP} destination ports with the most changed verdicts` })
  topChangedDestinationPorts!: ChangedDestinationPortDto[];
  @ApiProperty() firstEventTime!: string;
  @ApiProperty() lastEventTime!: string;
}

export class PreviewReportDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: [PreviewConfigurationReportDto], description: 'Exact totals per (experiment etag, live policy etag), newest first' })
  configurations!: PreviewConfigurationReportDto[];
}
