import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  DecisionHook,
  DecisionResult,
  DecisionStep,
  FilterStepResult,
  LeaseDecision,
  ListDecisionsResponse,
} from '@rollout/contracts';

export class DecisionStepDto implements DecisionStep {
  @ApiProperty({ example: 'MaxActiveLeases' }) filter!: string;
  @ApiProperty({ enum: ['ENFORCE', 'DRYRUN'] }) mode!: DecisionStep['mode'];
  @ApiProperty({ enum: ['ALLOW', 'DENY', 'WOULD_DENY', 'FAIL_OPEN', 'ERROR'] })
  result!: FilterStepResult;
  @ApiPropertyOptional() message?: string;
}

export class DecisionDto implements LeaseDecision {
  @ApiProperty({ enum: ['CHECK_CREATE', 'CHECK_UPDATE', 'ON_END'] }) hook!: DecisionHook;
  @ApiProperty({ enum: ['ALLOWED', 'DENIED', 'NOTIFIED'] }) result!: DecisionResult;
  @ApiPropertyOptional({ description: 'DENIED: the filter that refused' }) filter?: string;
  @ApiPropertyOptional({ description: 'DENIED: its message' }) message?: string;
  @ApiProperty({ description: 'The project is exempted: no filter ran' }) exempted!: boolean;
  @ApiProperty({ type: [DecisionStepDto] }) steps!: DecisionStepDto[];
  @ApiProperty({ format: 'date-time' }) time!: string;
  @ApiProperty({ description: 'Who asked (principal, blazar, or system when the end date passed)' })
  actor!: string;
  @ApiProperty() userId!: string;
  @ApiPropertyOptional() requestId?: string;
}

export class ListDecisionsResponseDto implements ListDecisionsResponse {
  @ApiProperty({ type: [DecisionDto] }) decisions!: DecisionDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
