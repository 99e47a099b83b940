import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  PREVIEW_FLOW_SAMPLES,
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
} from '@rollout/contracts';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type {
  Direction,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  PreviewFlow,
  PreviewFlowSample,
  PreviewTransition,
  PreviewVerdict,
  RuleAction,
} from '@rollout/contracts';

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
export class PreviewPageQueryDto implements Pick<
  ListPreviewFlowsRequest,
  'pageSize' | 'pageToken'
> {
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

export class PreviewFlowsQueryDto
  extends PreviewPageQueryDto
  implements Pick<ListPreviewFlowsRequest, 'pageSize' | 'pageToken' | 'filter'>
{
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

export class PreviewVerdictDto implements PreviewVerdict {
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: RuleAction;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The deciding rule; null when the implied rule decided',
  })
  rulePriority!: number | null;
  @ApiProperty({ description: 'No rule matched: INGRESS deny, EGRESS allow' }) implied!: boolean;
}

export class PreviewFlowSampleDto implements PreviewFlowSample {
  @ApiProperty({ description: 'The traffic event id, to look up in your own flow logs' })
  trafficEventId!: string;
  @ApiProperty({ description: "The event's time, as the producer wrote it (RFC 3339)" })
  eventTime!: string;
  @ApiPropertyOptional({ example: 51512, description: 'Absent for connections without ports' })
  srcPort?: number;
}

export class PreviewFlowDto implements PreviewFlow {
  @ApiProperty() experimentEtag!: string;
  @ApiProperty() livePolicyEtag!: string;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
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
  transition!: PreviewTransition;
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

export class ListPreviewFlowsResponseDto implements ListPreviewFlowsResponse {
  @ApiProperty({
    type: [PreviewFlowDto],
    description:
      'Changed decisions aggregated by flow (the connection without its source port, and the two deciding rules): newest configuration (experiment etag × live policy etag) first, then the flow seen last first',
  })
  previewFlows!: PreviewFlowDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
