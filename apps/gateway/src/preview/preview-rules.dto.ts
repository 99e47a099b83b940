import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  LiveRuleHits,
  LiveRuleUsage,
  RuleAction,
  RuleCount,
  RuleTransition,
} from '@rollout/contracts';
import { PreviewVerdictDto } from './preview-flows.dto';

export class RuleCountDto implements RuleCount {
  @ApiProperty({ type: Number, nullable: true }) rulePriority!: number | null;
  @ApiProperty() implied!: boolean;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: RuleAction;
  @ApiProperty({ description: 'Events this rule decided' }) count!: number;
}

export class LiveRuleHitsDto implements LiveRuleHits {
  @ApiProperty({ example: 1000 }) rulePriority!: number;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: RuleAction;
  @ApiProperty({ example: 98324, description: 'Events this rule decided (0: an unused rule)' })
  hits!: number;
  @ApiPropertyOptional({
    description: 'The rule is disabled: it decides nothing, and is not listed as unused',
  })
  disabled?: boolean;
}

export class LiveRuleUsageDto implements LiveRuleUsage {
  @ApiProperty({ example: 'W/"3"', description: 'The live policy version the rules are of' })
  livePolicyEtag!: string;
  @ApiProperty({ type: [LiveRuleHitsDto], description: 'Every rule of that version, by priority' })
  rules!: LiveRuleHitsDto[];
  @ApiProperty({
    example: 12,
    description: 'Events the implied rules decided (no rule of the policy matched)',
  })
  impliedHits!: number;
  @ApiProperty({
    type: [Number],
    example: [2000],
    description:
      'Priorities of the enabled rules that decided no event ("unused rules", as GCP Firewall Insights calls them): candidates for removal',
  })
  unusedRules!: number[];
}

export class RuleTransitionDto implements RuleTransition {
  @ApiProperty({ type: PreviewVerdictDto, description: 'The live policy rule that decided' })
  live!: PreviewVerdictDto;
  @ApiProperty({ type: PreviewVerdictDto, description: "The experiment's rule that decided" })
  experiment!: PreviewVerdictDto;
  @ApiProperty({ description: 'Events both rules decided' }) count!: number;
}
