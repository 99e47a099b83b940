import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_DIFFERING_REGIONS } from '@rollout/contracts';
import type {
  AnalysisLayer4,
  AnalysisTarget,
  AnalysisVerdict,
  DifferingRegion,
  Direction,
  ExperimentAnalysis,
  RuleAction,
  ShadowedRule,
} from '@rollout/contracts';

/** The static analysis of an experiment against the live policy (experiment.v1 1.3.0). */
export class AnalysisVerdictDto implements AnalysisVerdict {
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: RuleAction;
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
export class AnalysisLayer4Dto implements AnalysisLayer4 {
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
export class AnalysisTargetDto implements AnalysisTarget {
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
export class DifferingRegionDto implements DifferingRegion {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
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
  @ApiPropertyOptional({
    type: AnalysisTargetDto,
    description: 'Absent: whatever source secure tags the connection carries',
  })
  srcSecureTags?: AnalysisTargetDto;
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
export class ShadowedRuleDto implements ShadowedRule {
  @ApiProperty() priority!: number;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
  @ApiProperty({
    type: [Number],
    example: [100, 200],
    description:
      "The experiment's higher-priority rules that decide the connections this rule matches",
  })
  coveredBy!: number[];
}
export class ExperimentAnalysisDto implements ExperimentAnalysis {
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
