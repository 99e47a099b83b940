import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  PREVIEW_MINUTE_BUCKETS_HOURS,
  PREVIEW_REPORT_DEFAULT_PAGE_SIZE,
  PREVIEW_REPORT_MAX_PAGE_SIZE,
  PREVIEW_REPORT_PAGE_BYTES,
  PREVIEW_REPORT_TOP,
  PREVIEW_REPORT_TRANSITIONS,
} from '@rollout/contracts';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  PreviewCompletenessDto,
  PreviewCoverageDto,
  PreviewDisagreementDto,
} from './preview-completeness.dto';
import { PreviewReadinessDto } from './preview-readiness.dto';
import { LiveRuleUsageDto, RuleCountDto, RuleTransitionDto } from './preview-rules.dto';
import type {
  ChangedDestinationPort,
  ChangedPrefix,
  ChangedSource,
  GetPreviewReportRequest,
  PreviewConfigurationReport,
  PreviewReport,
  PreviewTimeBucket,
} from '@rollout/contracts';

export class ChangedSourceDto implements ChangedSource {
  @ApiProperty() srcIp!: string;
  @ApiProperty() count!: number;
}

export class ChangedDestinationPortDto implements ChangedDestinationPort {
  @ApiProperty({ example: 'tcp' }) protocol!: string;
  @ApiProperty({ example: 22 }) destPort!: number;
  @ApiProperty() count!: number;
}

export class ChangedPrefixDto implements ChangedPrefix {
  @ApiProperty({ example: '203.0.113.0/24', description: 'The block, in CIDR notation' })
  prefix!: string;
  @ApiProperty({ example: 24, description: 'Its prefix length: 24 or 16 (IPv4), 64 or 48 (IPv6)' })
  prefixLength!: number;
  @ApiProperty({ example: 592, description: 'Events in the block whose verdict changed' })
  count!: number;
  @ApiProperty({ example: 64, description: 'Distinct changed flows in the block' })
  flows!: number;
  @ApiProperty({
    example: 61,
    description:
      'Distinct addresses of the block the changed events came from (sources) or went to (destinations)',
  })
  addresses!: number;
}

export class PreviewTimeBucketDto implements PreviewTimeBucket {
  @ApiProperty({
    description:
      'Start of the bucket (RFC 3339); it holds events with a time in [startTime, startTime + width)',
  })
  startTime!: string;
  @ApiProperty({ enum: ['MINUTE', 'HOUR'] }) width!: PreviewTimeBucket['width'];
  @ApiProperty() evaluated!: number;
  @ApiProperty() changed!: number;
  @ApiProperty() allowToDeny!: number;
  @ApiProperty() denyToAllow!: number;
}

export class PreviewConfigurationReportDto implements PreviewConfigurationReport {
  @ApiProperty() experimentEtag!: string;
  @ApiProperty() livePolicyEtag!: string;
  @ApiProperty({
    description: 'evaluated = allowToDeny + denyToAllow + unchangedAllow + unchangedDeny',
  })
  evaluated!: number;
  @ApiProperty({ description: 'changed = allowToDeny + denyToAllow' }) changed!: number;
  @ApiProperty() allowToDeny!: number;
  @ApiProperty() denyToAllow!: number;
  @ApiProperty() unchangedAllow!: number;
  @ApiProperty() unchangedDeny!: number;
  @ApiProperty({
    type: [RuleCountDto],
    description: 'Deciding rules of the live policy, most frequent first',
  })
  liveRules!: RuleCountDto[];
  @ApiProperty({
    type: [RuleCountDto],
    description: "Deciding rules of the experiment's policy, most frequent first",
  })
  experimentRules!: RuleCountDto[];
  @ApiProperty({
    type: [ChangedSourceDto],
    description: `The ${PREVIEW_REPORT_TOP} sources with the most changed verdicts, over the flows kept (see flows)`,
  })
  topChangedSources!: ChangedSourceDto[];
  @ApiProperty({
    type: [ChangedDestinationPortDto],
    description: `The ${PREVIEW_REPORT_TOP} destination ports with the most changed verdicts (events without a port are not ranked), over the flows kept`,
  })
  topChangedDestinationPorts!: ChangedDestinationPortDto[];
  @ApiPropertyOptional({
    type: [ChangedPrefixDto],
    description: `The source blocks with the most changed events: the ${PREVIEW_REPORT_TOP} largest of each of /24 and /16 (IPv4) and /64 and /48 (IPv6), by prefix length then most first, exact over the flows kept`,
  })
  topChangedSourcePrefixes?: ChangedPrefixDto[];
  @ApiPropertyOptional({
    type: [ChangedPrefixDto],
    description: `The same for destination blocks (${PREVIEW_REPORT_TOP} of each prefix length)`,
  })
  topChangedDestinationPrefixes?: ChangedPrefixDto[];
  @ApiPropertyOptional({ description: 'Distinct changed flows kept for previewFlows' })
  flows?: number;
  @ApiPropertyOptional({
    description:
      'Changed events whose flow is not kept, because the evaluator already kept the most flows it keeps (EVALUATOR_MAX_FLOWS) for the experiments ACTIVE together with this one (before preview.v1 1.13.0: for this configuration alone): counted in the totals above, in no flow',
  })
  changedOutsideFlows?: number;
  @ApiPropertyOptional({
    type: [RuleTransitionDto],
    description: `Events by (live deciding rule → experiment deciding rule), implied rules included, the ${PREVIEW_REPORT_TRANSITIONS} most frequent first: the rule-transition matrix, whose margins are liveRules and experimentRules and, summed by action, the verdict counts`,
  })
  ruleTransitions?: RuleTransitionDto[];
  @ApiPropertyOptional({
    description: `Cells of the matrix left out of ruleTransitions (past the ${PREVIEW_REPORT_TRANSITIONS} most frequent)`,
  })
  ruleTransitionsOmitted?: number;
  @ApiPropertyOptional({
    type: [PreviewTimeBucketDto],
    description: `Evaluated and changed events by event time, oldest first: minute buckets for the ${PREVIEW_MINUTE_BUCKETS_HOURS} hours before the last event, hour buckets before that, back to the retention period`,
  })
  timeBuckets?: PreviewTimeBucketDto[];
  @ApiPropertyOptional({
    type: PreviewCompletenessDto,
    description: 'Whether the counts above are all of the policy traffic, and what they miss',
  })
  completeness?: PreviewCompletenessDto;
  @ApiPropertyOptional({
    type: [PreviewDisagreementDto],
    description:
      'With two or more ACTIVE experiments on the policy: per other experiment (and etag), the events it decides differently, most first',
  })
  disagreements?: PreviewDisagreementDto[];
  @ApiPropertyOptional({
    example: 3,
    description: `Experiments left out of disagreements, past the ${PREVIEW_REPORT_TOP} that disagree on most events`,
  })
  disagreementsOmitted?: number;
  @ApiPropertyOptional({
    type: PreviewCoverageDto,
    description:
      "The experiment's static analysis against this configuration's traffic; only for the configuration of the experiment and live versions in force now",
  })
  coverage?: PreviewCoverageDto;
  @ApiPropertyOptional({
    type: LiveRuleUsageDto,
    description:
      "The live policy's own rule usage: every rule of the live version with the events it decided in this configuration, and the enabled ones that decided none; only for the configuration of the versions in force now (a backtest's: over the whole retained window)",
  })
  liveRuleUsage?: LiveRuleUsageDto;
  @ApiProperty() firstEventTime!: string;
  @ApiProperty() lastEventTime!: string;
}

export class PreviewReportDto implements PreviewReport {
  @ApiProperty() name!: string;
  @ApiProperty({
    type: [PreviewConfigurationReportDto],
    description: `Exact totals per (experiment etag, live policy etag), newest first: a page of at most pageSize, and at most ${PREVIEW_REPORT_PAGE_BYTES / 1024} KiB of them (always one)`,
  })
  configurations!: PreviewConfigurationReportDto[];
  @ApiPropertyOptional({
    description: 'Where the older configurations continue; absent on the last page',
  })
  nextPageToken?: string;
  @ApiPropertyOptional({
    type: PreviewReadinessDto,
    description:
      "The experiment's readiness gates judged on its latest preview; absent when the evaluator does not hold the experiment, and on pages after the first",
  })
  readiness?: PreviewReadinessDto;
  @ApiPropertyOptional({
    example: 'q3Zr1c8mB0xw2T5k.Yb1m9Qe4c0VnR2sW',
    description:
      '{what matters}.{counts}: pass it to commit, which is refused (409 ABORTED) if the first part changed (another configuration judged, or a gate flipped); first page only',
  })
  reportEtag?: string;
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2025-06-01T00:00:01.042Z',
    description:
      "When the evaluator first applied the experiment's current preview (its startPreview); events published before it are not the preview's. Absent until then",
  })
  previewAppliedTime?: string;
}

/** previewReport's paging: configurations, newest first. */
export class PreviewReportQueryDto implements Pick<
  GetPreviewReportRequest,
  'pageSize' | 'pageToken'
> {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: PREVIEW_REPORT_MAX_PAGE_SIZE,
    description: `Configurations per page: default ${PREVIEW_REPORT_DEFAULT_PAGE_SIZE}, at most ${PREVIEW_REPORT_MAX_PAGE_SIZE}`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(PREVIEW_REPORT_MAX_PAGE_SIZE)
  pageSize?: number;

  @ApiPropertyOptional({
    maxLength: 256,
    description: 'The nextPageToken of the previous page',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  pageToken?: string;
}
