import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import { IsISO8601, IsOptional } from 'class-validator';
import { PreviewDeadLetterCountDto } from './preview-completeness.dto';
import { PreviewFlowDto } from './preview-flows.dto';
import { PreviewReportDto } from './preview-report.dto';
import type {
  BacktestOperation,
  BacktestRequest,
  BacktestResult,
  BacktestWindow,
} from '@rollout/contracts';

export class BacktestBodyDto implements Pick<BacktestRequest, 'startTime' | 'endTime'> {
  @ApiPropertyOptional({
    example: '2025-06-01T00:00:00Z',
    description:
      "Replay what TRAFFIC stored at or after this time (the stream's time, not the events'); default: the oldest message it retains",
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  startTime?: string;

  @ApiPropertyOptional({
    example: '2025-06-01T06:00:00Z',
    description:
      'Replay what TRAFFIC stored at or before this time; default: its newest message when the backtest starts',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  endTime?: string;
}

export class BacktestWindowDto implements BacktestWindow {
  @ApiPropertyOptional() requestedStartTime?: string;
  @ApiPropertyOptional() requestedEndTime?: string;
  @ApiPropertyOptional({
    description:
      'When TRAFFIC stored its oldest retained message, at the start; absent when it held none',
  })
  retainedStartTime?: string;
  @ApiProperty({
    description:
      "That message's stream sequence (above 1: the stream's limits have removed older ones)",
  })
  retainedStartSequence!: number;
  @ApiProperty({
    description: "The stream's last sequence at the start: nothing published later is replayed",
  })
  lastSequence!: number;
  @ApiPropertyOptional({ description: 'Stream time of the first message replayed' })
  replayedStartTime?: string;
  @ApiPropertyOptional({ description: 'Stream time of the last message replayed' })
  replayedEndTime?: string;
  @ApiProperty() messagesReplayed!: number;
  @ApiProperty() eventsReplayed!: number;
  @ApiProperty({
    type: [PreviewDeadLetterCountDto],
    description:
      'Messages that could not be decoded or evaluated, by reason (the live path would dead-letter them)',
  })
  skipped!: PreviewDeadLetterCountDto[];
  @ApiProperty() skippedMessages!: number;
  @ApiProperty({
    description:
      'The asked window starts before the oldest message TRAFFIC retains (or, with no start asked, the stream removed older ones): part of it is gone',
  })
  startsBeforeRetention!: boolean;
  @ApiProperty({ example: 'Replayed 11 messages (10 events) TRAFFIC stored from … to ….' })
  summary!: string;
}

export class BacktestResultDto implements BacktestResult {
  @ApiProperty({ example: 'type.googleapis.com/policyrollout.preview.v1.BacktestResult' })
  '@type'!: string;
  @ApiProperty({
    type: PreviewReportDto,
    description:
      "previewReport's shape, one configuration (none when nothing was replayed); no completeness, disagreements or readiness",
  })
  report!: PreviewReportDto;
  @ApiProperty({
    type: [PreviewFlowDto],
    description: `The ${PREVIEW_REPORT_TOP} changed flows with the most events`,
  })
  topChangedFlows!: PreviewFlowDto[];
  @ApiProperty({ type: BacktestWindowDto }) window!: BacktestWindowDto;
}

export class BacktestOperationDto implements BacktestOperation {
  @ApiProperty({ example: 'operations/backtest-0b9d6c1e-5f7a-4f0e-9d3c-2b1a0e9f8c7d' })
  name!: string;
  @ApiProperty() done!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '@type, verb (backtest), target, createTime, updateTime, endTime, messagesReplayed, eventsReplayed',
  })
  metadata!: BacktestOperation['metadata'];
  @ApiPropertyOptional({ type: BacktestResultDto, description: 'Once done: the result' })
  response?: BacktestResultDto;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'google.rpc.Status, once failed (ABORTED when the evaluator running it stopped)',
  })
  error?: BacktestOperation['error'];
}
