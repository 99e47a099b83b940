import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  PREVIEW_DISAGREEMENT_FLOWS,
  PREVIEW_FLOW_SAMPLES,
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
  PREVIEW_MINUTE_BUCKETS_HOURS,
  PREVIEW_REPORT_TOP,
  PREVIEW_REPORT_TRANSITIONS,
} from '@rollout/contracts';
import { Transform, Type } from 'class-transformer';
import { DifferingRegionDto } from '../experiments/experiments.dto';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** HTTP shapes of preview.v1 (previewFlows, previewLogs and previewReport of an experiment). */

/** ListPreviewFlowsRequest.filter's bound (`@maxLength` in the contract). */
export const PREVIEW_FLOWS_FILTER_MAX_LENGTH = 2000;

/**
 * The filter grammar, as the contract's JSDoc (ListPreviewFlowsRequest) states it: the evaluator
 * parses the filter; the gateway only bounds its length and passes it through.
 */
export const PREVIEW_FLOWS_FILTER_GRAMMAR =
  'AIP-160 subset, a conjunction: terms joined by `AND`, each `field = value`, `field != value`, ' +
  'or for ports `destPort >= n` / `destPort <= n`. Fields: `transition` (`ALLOW_TO_DENY`, `DENY_TO_ALLOW`), ' +
  '`liveRule` and `experimentRule` (a priority, or `implied`), `srcIp`, `destIp` and `ip` (either side; an ' +
  'address or a CIDR range, which matches the addresses in it), `destPort`, `protocol`, `direction`, ' +
  '`experimentEtag`, `livePolicyEtag`. Values may be quoted. ' +
  'Example: `transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort = 22`. ' +
  `At most ${PREVIEW_FLOWS_FILTER_MAX_LENGTH} characters; one the evaluator cannot parse is 400 INVALID_ARGUMENT.`;

/** Paging, the same for every preview list. */
class PreviewPageQueryDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: PREVIEW_LOGS_MAX_PAGE_SIZE,
    description: `Default ${PREVIEW_LOGS_DEFAULT_PAGE_SIZE}, at most ${PREVIEW_LOGS_MAX_PAGE_SIZE}`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(PREVIEW_LOGS_MAX_PAGE_SIZE)
  pageSize?: number;

  @ApiPropertyOptional({
    maxLength: 256,
    description: 'The nextPageToken of the previous page of the same query',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  pageToken?: string;
}

export class PreviewFlowsQueryDto extends PreviewPageQueryDto {
  @ApiPropertyOptional({
    maxLength: PREVIEW_FLOWS_FILTER_MAX_LENGTH,
    example: 'transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort = 22',
    description: PREVIEW_FLOWS_FILTER_GRAMMAR,
  })
  @IsOptional()
  @IsString()
  @MaxLength(PREVIEW_FLOWS_FILTER_MAX_LENGTH)
  filter?: string;
}

export class PreviewLogsQueryDto extends PreviewPageQueryDto {
  @ApiPropertyOptional({
    deprecated: true,
    example: true,
    description:
      'Deprecated since preview.v1 1.1.0 (sunset 2027-12-31): use previewFlows with a filter. Every listed record has changed since 1.1.0, whatever this says',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  changedOnly?: boolean;
}

export class PreviewVerdictDto {
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The deciding rule; null when the implied rule decided',
  })
  rulePriority!: number | null;
  @ApiProperty({ description: 'No rule matched: INGRESS deny, EGRESS allow' }) implied!: boolean;
}

export class PreviewConnectionDto {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ example: '198.51.100.7' }) srcIp!: string;
  @ApiProperty({ example: '10.0.0.5' }) destIp!: string;
  @ApiProperty({
    oneOf: [
      { type: 'string', example: 'tcp' },
      { type: 'integer', minimum: 0, maximum: 255 },
    ],
  })
  protocol!: string | number;
  @ApiPropertyOptional() srcPort?: number;
  @ApiPropertyOptional({ example: 22 }) destPort?: number;
  @ApiPropertyOptional({ type: [String] }) targetTags?: string[];
}

export class PreviewLogRecordDto {
  @ApiProperty({ example: 'FirewallPolicyPreviewLog' }) logPrefix!: string;
  @ApiProperty({
    description: 'Deterministic: from the traffic event id, the experiment and its etag',
  })
  id!: string;
  @ApiProperty({
    example: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh',
  })
  experiment!: string;
  @ApiProperty({ example: 'projects/acme/locations/global/firewallPolicies/edge' })
  firewallPolicy!: string;
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
  @ApiProperty({
    type: [PreviewLogRecordDto],
    description:
      'The sample records of the changed flows (see previewFlows), newest configuration (experiment etag × live policy etag) first; no record twice across pages',
  })
  previewLogs!: PreviewLogRecordDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}

export class PreviewFlowSampleDto {
  @ApiProperty({ description: 'The traffic event id, to look up in your own flow logs' })
  trafficEventId!: string;
  @ApiProperty({ description: "The event's time, as the producer wrote it (RFC 3339)" })
  eventTime!: string;
  @ApiPropertyOptional({ example: 51512, description: 'Absent for connections without ports' })
  srcPort?: number;
}

export class PreviewFlowDto {
  @ApiProperty() experimentEtag!: string;
  @ApiProperty() livePolicyEtag!: string;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty({ example: '198.51.100.7' }) srcIp!: string;
  @ApiProperty({ example: '10.0.0.5' }) destIp!: string;
  @ApiProperty({
    example: 'tcp',
    description: "The protocol's name (tcp, udp, …), or its number for protocols without one",
  })
  protocol!: string;
  @ApiPropertyOptional({ example: 22, description: 'Absent for connections without ports' })
  destPort?: number;
  @ApiProperty({
    enum: ['ALLOW_TO_DENY', 'DENY_TO_ALLOW'],
    description: 'ALLOW_TO_DENY: the change blocks the flow; DENY_TO_ALLOW: it opens it',
  })
  transition!: string;
  @ApiProperty({ type: PreviewVerdictDto, description: 'What the live policy decided' })
  liveResult!: PreviewVerdictDto;
  @ApiProperty({ type: PreviewVerdictDto, description: "What the experiment's policy decided" })
  experimentResult!: PreviewVerdictDto;
  @ApiProperty({ description: 'Events of this flow (all of them, exactly)' }) count!: number;
  @ApiProperty({ description: 'Earliest event time of the flow (RFC 3339)' })
  firstEventTime!: string;
  @ApiProperty({ description: 'Latest event time of the flow (RFC 3339)' }) lastEventTime!: string;
  @ApiProperty({
    type: [PreviewFlowSampleDto],
    description: `The first events of the flow, at most ${PREVIEW_FLOW_SAMPLES}`,
  })
  samples!: PreviewFlowSampleDto[];
}

export class ListPreviewFlowsResponseDto {
  @ApiProperty({
    type: [PreviewFlowDto],
    description:
      'Changed decisions aggregated by flow (the connection without its source port, and the two deciding rules): newest configuration (experiment etag × live policy etag) first, then the flow seen last first',
  })
  previewFlows!: PreviewFlowDto[];
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

export class RuleTransitionDto {
  @ApiProperty({ type: PreviewVerdictDto, description: 'The live policy rule that decided' })
  live!: PreviewVerdictDto;
  @ApiProperty({ type: PreviewVerdictDto, description: "The experiment's rule that decided" })
  experiment!: PreviewVerdictDto;
  @ApiProperty({ description: 'Events both rules decided' }) count!: number;
}

export class PreviewTimeBucketDto {
  @ApiProperty({
    description:
      'Start of the bucket (RFC 3339); it holds events with a time in [startTime, startTime + width)',
  })
  startTime!: string;
  @ApiProperty({ enum: ['MINUTE', 'HOUR'] }) width!: string;
  @ApiProperty() evaluated!: number;
  @ApiProperty() changed!: number;
  @ApiProperty() allowToDeny!: number;
  @ApiProperty() denyToAllow!: number;
}

export class PreviewDeadLetterCountDto {
  @ApiProperty({
    description:
      'The dead-letter reason (bad_json, invalid_event, bad_address, contract_mismatch, unevaluable)',
  })
  reason!: string;
  @ApiProperty() messages!: number;
}

export class PreviewEvaluatorLagDto {
  @ApiProperty({
    description:
      'TRAFFIC messages (every policy) not yet delivered, or delivered and not yet acknowledged',
  })
  pendingMessages!: number;
  @ApiPropertyOptional({
    description: 'When the oldest of them was published (RFC 3339); absent when none is pending',
  })
  oldestPendingTime?: string;
}

export class PreviewCompletenessDto {
  @ApiProperty({
    description:
      'Nothing dead-lettered, nothing known or possibly dropped by TRAFFIC since the first evaluation, nothing left to read',
  })
  complete!: boolean;
  @ApiProperty({ description: 'What the counts miss, in a sentence' }) summary!: string;
  @ApiProperty({
    type: [PreviewDeadLetterCountDto],
    description:
      "Messages of the policy's traffic dead-lettered while this configuration was ACTIVE, most first",
  })
  deadLettered!: PreviewDeadLetterCountDto[];
  @ApiProperty() deadLetteredMessages!: number;
  @ApiProperty({
    description:
      'Events counted from messages JetStream delivered more than once (counted once all the same)',
  })
  redeliveredEvents!: number;
  @ApiProperty({
    description:
      "Messages TRAFFIC's limits removed before the evaluator read them, since the first evaluation, every policy's",
  })
  trafficDroppedMessages!: number;
  @ApiProperty({
    description:
      'Messages TRAFFIC removed meanwhile that may or may not have been read first: loss unknown',
  })
  trafficDropUndetermined!: number;
  @ApiPropertyOptional({
    type: PreviewEvaluatorLagDto,
    description: "The evaluator's backlog now; absent when it could not be read",
  })
  lag?: PreviewEvaluatorLagDto;
}

export class PreviewDisagreementFlowDto {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: string;
  @ApiProperty() srcIp!: string;
  @ApiProperty() destIp!: string;
  @ApiProperty({ description: 'The protocol name, or its number for protocols without one' })
  protocol!: string;
  @ApiPropertyOptional({ description: 'Absent for connections without ports' }) destPort?: number;
  @ApiProperty({ enum: ['allow', 'deny'], description: "This configuration's experiment's action" })
  action!: string;
  @ApiProperty({ enum: ['allow', 'deny'], description: "The other experiment's action" })
  otherAction!: string;
  @ApiProperty() count!: number;
}

export class PreviewDisagreementDto {
  @ApiProperty({ description: "The other experiment's resource name" }) experiment!: string;
  @ApiProperty() experimentEtag!: string;
  @ApiProperty({
    description: 'Events (while both were ACTIVE) the two experiments decide differently',
  })
  events!: number;
  @ApiProperty({
    type: [PreviewDisagreementFlowDto],
    description: `The ${PREVIEW_REPORT_TOP} flows with the most such events`,
  })
  topFlows!: PreviewDisagreementFlowDto[];
  @ApiProperty({
    description: `Events in flows not kept (past ${PREVIEW_DISAGREEMENT_FLOWS} distinct flows for the pair)`,
  })
  eventsOutsideFlows!: number;
}

export class PreviewCoverageDto {
  @ApiProperty({
    description: 'false when the analysis hit its work bound: nothing below may be inferred',
  })
  complete!: boolean;
  @ApiProperty({
    description:
      'Regions of the analysis where live and experiment decide differently (listed ones)',
  })
  differingRegions!: number;
  @ApiProperty({ description: "Regions past the analysis's listing bound, not examined" })
  regionsOmitted!: number;
  @ApiProperty({
    type: [DifferingRegionDto],
    description:
      'The differing regions no previewed connection touched: what the change does that no traffic tested',
  })
  untouchedRegions!: DifferingRegionDto[];
  @ApiProperty({
    description:
      'false when changed events outside the kept flows, or regions not listed, may touch a region listed as untouched',
  })
  exact!: boolean;
  @ApiProperty({
    type: [Number],
    description:
      'Priorities of the enabled experiment rules that decided no event of this configuration',
  })
  unmatchedExperimentRules!: number[];
  @ApiProperty({
    type: [Number],
    description: 'Priorities of the experiment rules the analysis found shadowed',
  })
  shadowedRules!: number[];
}

export class PreviewConfigurationReportDto {
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
  @ApiPropertyOptional({ description: 'Distinct changed flows kept for previewFlows' })
  flows?: number;
  @ApiPropertyOptional({
    description:
      'Changed events whose flow is not kept, because the configuration already had the most flows the evaluator keeps (EVALUATOR_MAX_FLOWS): counted in the totals above, in no flow',
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
    type: PreviewCoverageDto,
    description:
      "The experiment's static analysis against this configuration's traffic; only for the configuration of the experiment and live versions in force now",
  })
  coverage?: PreviewCoverageDto;
  @ApiProperty() firstEventTime!: string;
  @ApiProperty() lastEventTime!: string;
}

export class ReadinessGateStatusDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { minEvaluated: 100000 },
    description: 'The gate as the experiment carries it',
  })
  gate!: object;
  @ApiProperty({
    enum: [
      'minPreviewDuration',
      'minEvaluated',
      'maxAllowToDenyShare',
      'noDenyToAllowFrom',
      'maxCompletenessLoss',
    ],
  })
  kind!: string;
  @ApiProperty({
    description:
      "The current value, in the gate's unit: seconds, events, a share (0-1), events, messages",
  })
  value!: number;
  @ApiProperty() holds!: boolean;
  @ApiProperty({ example: '1,200 events evaluated; at least 100000 required.' })
  description!: string;
}

export class PreviewReadinessDto {
  @ApiProperty({
    description:
      "The experiment's etag as the evaluator holds it now: a commit of another etag with requireGates or reportEtag is refused",
  })
  currentExperimentEtag!: string;
  @ApiPropertyOptional({
    description: 'The configuration judged (absent when the current version has no preview)',
  })
  experimentEtag?: string;
  @ApiPropertyOptional() livePolicyEtag?: string;
  @ApiProperty({ description: 'Every gate holds (true when there are none)' }) ready!: boolean;
  @ApiProperty({ type: [ReadinessGateStatusDto] }) gates!: ReadinessGateStatusDto[];
}

export class PreviewReportDto {
  @ApiProperty() name!: string;
  @ApiProperty({
    type: [PreviewConfigurationReportDto],
    description: 'Exact totals per (experiment etag, live policy etag), newest first',
  })
  configurations!: PreviewConfigurationReportDto[];
  @ApiPropertyOptional({
    type: PreviewReadinessDto,
    description:
      "The experiment's readiness gates judged on its latest preview; absent when the evaluator does not hold the experiment",
  })
  readiness?: PreviewReadinessDto;
  @ApiPropertyOptional({
    example: 'q3Zr1c8mB0xw2T5k.Yb1m9Qe4c0VnR2sW',
    description:
      '{what matters}.{counts}: pass it to commit, which is refused (409 ABORTED) if the first part changed (another configuration judged, or a gate flipped)',
  })
  reportEtag?: string;
}
