import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { PreviewPageQueryDto, PreviewVerdictDto } from './preview-flows.dto';
import type {
  Direction,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_LOG_PREFIX,
  PreviewConnection,
  PreviewLogRecord,
  TrafficProtocol,
} from '@rollout/contracts';

/** HTTP shapes of preview.v1's deprecated previewLogs: the sample records of the changed flows. */

export class PreviewLogsQueryDto
  extends PreviewPageQueryDto
  implements Pick<ListPreviewLogsRequest, 'pageSize' | 'pageToken' | 'changedOnly'>
{
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

export class PreviewConnectionDto implements PreviewConnection {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
  @ApiProperty({ example: '198.51.100.7' }) srcIp!: string;
  @ApiProperty({ example: '10.0.0.5' }) destIp!: string;
  @ApiProperty({
    oneOf: [
      { type: 'string', example: 'tcp' },
      { type: 'integer', minimum: 0, maximum: 255 },
    ],
  })
  protocol!: TrafficProtocol;
  @ApiPropertyOptional() srcPort?: number;
  @ApiPropertyOptional({ example: 22 }) destPort?: number;
  @ApiPropertyOptional({ type: [String] }) targetTags?: string[];
  @ApiPropertyOptional({ type: [String], example: ['k8s:app=api'] }) srcSecureTags?: string[];
}

export class PreviewLogRecordDto implements PreviewLogRecord {
  @ApiProperty({ type: String, example: 'FirewallPolicyPreviewLog' })
  logPrefix!: typeof PREVIEW_LOG_PREFIX;
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

export class ListPreviewLogsResponseDto implements ListPreviewLogsResponse {
  @ApiProperty({
    type: [PreviewLogRecordDto],
    description:
      'The sample records of the changed flows (see previewFlows), newest configuration (experiment etag × live policy etag) first; no record twice across pages',
  })
  previewLogs!: PreviewLogRecordDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
