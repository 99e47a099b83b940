import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PreviewReadiness, ReadinessGateStatus } from '@rollout/contracts';

/** The readiness gates of an experiment, judged on its latest preview. */

export class ReadinessGateStatusDto implements ReadinessGateStatus {
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

export class PreviewReadinessDto implements PreviewReadiness {
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
