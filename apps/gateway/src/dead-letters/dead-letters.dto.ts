import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DEAD_LETTER_SAMPLES } from '@rollout/contracts';
import { IsOptional, Matches, MaxLength } from 'class-validator';
import type {
  DeadLetterPolicyCount,
  DeadLetterReasonCount,
  DeadLetterSample,
  DeadLetterSummary,
  GetDeadLettersRequest,
} from '@rollout/contracts';

export class DeadLettersQueryDto implements Pick<GetDeadLettersRequest, 'policy'> {
  @ApiPropertyOptional({
    example: 'web-typo',
    description:
      'Only this firewall policy id, as the traffic subject named it (it need not exist: a typo is `unknown_policy`)',
  })
  @IsOptional()
  @MaxLength(200)
  @Matches(/^[^/.\s]+$/, { message: 'policy must be a firewall policy id (no dots or slashes)' })
  policy?: string;
}

export class DeadLetterReasonCountDto implements DeadLetterReasonCount {
  @ApiProperty({
    example: 'unknown_policy',
    description:
      "The evaluator's dead-letter reason: unknown_policy, bad_address, invalid_event, bad_json, contract_mismatch, foreign_message_id, unevaluable",
  })
  reason!: string;
  @ApiProperty({ example: 2 }) count!: number;
}

export class DeadLetterPolicyCountDto implements DeadLetterPolicyCount {
  @ApiProperty({ example: 'web-typo', description: 'The firewall policy id the subject named' })
  policy!: string;
  @ApiProperty({ example: 2 }) total!: number;
  @ApiProperty({ type: [DeadLetterReasonCountDto], description: 'The most frequent first' })
  byReason!: DeadLetterReasonCountDto[];
  @ApiProperty({ format: 'date-time', example: '2026-11-28T21:00:02.000Z' }) lastTime!: string;
}

export class DeadLetterSampleDto implements DeadLetterSample {
  @ApiProperty({ format: 'date-time', example: '2026-11-28T21:00:02.000Z' }) time!: string;
  @ApiProperty({ example: 'web-typo' }) policy!: string;
  @ApiProperty({ example: 'unknown_policy' }) reason!: string;
  @ApiProperty({
    example: 'no live policy projects/acme/locations/global/firewallPolicies/web-typo',
    description: "The reason in words (the dead-letter message's Dead-Letter-Reason header)",
  })
  detail!: string;
}

export class DeadLetterSummaryDto implements DeadLetterSummary {
  @ApiProperty({ example: 3, description: 'Messages dead-lettered (of `policy` when asked)' })
  total!: number;
  @ApiProperty({ type: [DeadLetterPolicyCountDto], description: 'The most dead-lettered first' })
  byPolicy!: DeadLetterPolicyCountDto[];
  @ApiProperty({
    type: [DeadLetterSampleDto],
    description: `A few recent ones (at most ${DEAD_LETTER_SAMPLES}), newest first`,
  })
  samples!: DeadLetterSampleDto[];
}

/** The example of the OpenAPI document: a producer's typo and one bad address. */
export const DEAD_LETTER_SUMMARY_EXAMPLE: DeadLetterSummaryDto = {
  total: 3,
  byPolicy: [
    {
      policy: 'web-typo',
      total: 2,
      byReason: [{ reason: 'unknown_policy', count: 2 }],
      lastTime: '2026-11-28T21:00:02.000Z',
    },
    {
      policy: 'web',
      total: 1,
      byReason: [{ reason: 'bad_address', count: 1 }],
      lastTime: '2026-11-28T21:00:01.000Z',
    },
  ],
  samples: [
    {
      time: '2026-11-28T21:00:02.000Z',
      policy: 'web-typo',
      reason: 'unknown_policy',
      detail: 'no live policy projects/acme/locations/global/firewallPolicies/web-typo',
    },
    {
      time: '2026-11-28T21:00:01.000Z',
      policy: 'web',
      reason: 'bad_address',
      detail: 'invalid traffic event: srcIp "10.0.0.300" is not an IP address',
    },
  ],
};
