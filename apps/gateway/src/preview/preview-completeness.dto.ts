import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import { DifferingRegionDto } from '../experiments/experiment-analysis.dto';
import type {
  Direction,
  PreviewCompleteness,
  ChangedRegionTraffic,
  PreviewCoverage,
  PreviewDeadLetterCount,
  PreviewDisagreement,
  PreviewDisagreementFlow,
  PreviewEvaluatorLag,
  RuleAction,
} from '@rollout/contracts';

/** What a preview report's counts miss, and what the change does that no traffic tested. */

export class PreviewDeadLetterCountDto implements PreviewDeadLetterCount {
  @ApiProperty({
    description:
      'The dead-letter reason (bad_json, invalid_event, bad_address, contract_mismatch, unevaluable)',
  })
  reason!: string;
  @ApiProperty() messages!: number;
}

export class PreviewEvaluatorLagDto implements PreviewEvaluatorLag {
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

export class PreviewCompletenessDto implements PreviewCompleteness {
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

export class PreviewDisagreementFlowDto implements PreviewDisagreementFlow {
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
  @ApiProperty() srcIp!: string;
  @ApiProperty() destIp!: string;
  @ApiProperty({ description: 'The protocol name, or its number for protocols without one' })
  protocol!: string;
  @ApiPropertyOptional({ description: 'Absent for connections without ports' }) destPort?: number;
  @ApiProperty({ enum: ['allow', 'deny'], description: "This configuration's experiment's action" })
  action!: RuleAction;
  @ApiProperty({ enum: ['allow', 'deny'], description: "The other experiment's action" })
  otherAction!: RuleAction;
  @ApiProperty() count!: number;
}

export class PreviewDisagreementDto implements PreviewDisagreement {
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
    description:
      'Events in flows not kept (past the distinct flows the evaluator keeps for the experiments ACTIVE together, EVALUATOR_MAX_FLOWS)',
  })
  eventsOutsideFlows!: number;
}

export class ChangedRegionTrafficDto implements ChangedRegionTraffic {
  @ApiProperty({
    example: 'tcp/22 from 0.0.0.0/0 is now denied',
    description: "The experiment diff's sentence for the region",
  })
  summary!: string;
  @ApiProperty({
    enum: ['allow', 'deny'],
    example: 'deny',
    description:
      "The experiment's verdict in the region: deny for now denied, allow for now allowed",
  })
  action!: 'allow' | 'deny';
  @ApiProperty({ example: 592, description: 'Changed events of the kept flows in the region' })
  events!: number;
  @ApiProperty({ example: 64, description: 'Kept changed flows in the region' })
  flows!: number;
  @ApiProperty({ example: 61, description: 'Distinct source addresses of those flows' })
  sources!: number;
}

export class PreviewCoverageDto implements PreviewCoverage {
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
  @ApiPropertyOptional({
    type: [ChangedRegionTrafficDto],
    description:
      'Each listed differing region, in the diff\'s words and order, with the changed traffic in it ("tcp/22 from 0.0.0.0/0 is now denied: 592 events from 61 sources"). Counted over the kept flows: exact when changedOutsideFlows is 0. Flows carry no target tags, so a region\'s target condition is not applied',
  })
  changedByRegion?: ChangedRegionTrafficDto[];
}
