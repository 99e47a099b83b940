import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LIST_PAGE_SIZES } from '@rollout/contracts';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import type {
  CommandContext,
  ApproveCommitRequest,
  CommitRequest,
  ProposeCommitRequest,
  DeleteRequest,
  HistoryEvent,
  ListHistoryEventsResponse,
  ListRequest,
  Operation,
  PreviewRequest,
  UpdatePolicyRequest,
} from '@rollout/contracts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export class CommitRequestDto implements Pick<
  CommitRequest,
  'etag' | 'livePolicyEtag' | 'parentEtag' | 'requestId' | 'reason'
> {
  @ApiProperty({ description: "The experiment's current etag (required)" })
  @IsString()
  @IsNotEmpty()
  etag!: string;
  @ApiPropertyOptional({
    description: "The live policy's current etag: commit only onto that version",
  })
  @IsOptional()
  @IsString()
  livePolicyEtag?: string;
  @ApiPropertyOptional({
    deprecated: true,
    description:
      'Deprecated since experiment.v1 1.1.0 (sunset 2027-12-31): the old name of livePolicyEtag, same meaning',
  })
  @IsOptional()
  @IsString()
  parentEtag?: string;
  @ApiPropertyOptional({
    description: 'AIP-155: a retry with the same id returns the first result',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
  @ApiPropertyOptional({
    description:
      'Refuse (400 FAILED_PRECONDITION, one PreconditionFailure violation per unmet gate) unless every readiness gate holds in the preview report now',
  })
  @IsOptional()
  @IsBoolean()
  requireGates?: boolean;
  @ApiPropertyOptional({
    description:
      "The preview report's reportEtag the decision was made on: refuse (409 ABORTED) if its configuration or a gate's verdict changed since",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  reportEtag?: string;
  @ApiPropertyOptional({
    example: 'SEC-42: no SSH from the internet',
    description:
      "Since experiment.v1 1.6.0: why, kept in the revision and its history entry with the experiment's annotations (at most 1000 characters)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

/** proposeCommit takes what a commit takes; the commit happens at approveCommit. */
export class ProposeCommitRequestDto
  extends CommitRequestDto
  implements Pick<ProposeCommitRequest, 'etag' | 'livePolicyEtag' | 'requestId' | 'reason'> {}

/** approveCommit: the experiment's etag after the proposal, and the report the approver read. */
export class ApproveCommitRequestDto implements Pick<
  ApproveCommitRequest,
  'etag' | 'livePolicyEtag' | 'requestId'
> {
  @ApiProperty({
    description:
      "The experiment's current etag, the one its proposal gave it (required): an experiment changed since is 409 ABORTED",
  })
  @IsString()
  @IsNotEmpty()
  etag!: string;
  @ApiPropertyOptional({ description: "The live policy's current etag" })
  @IsOptional()
  @IsString()
  livePolicyEtag?: string;
  @ApiPropertyOptional({
    description: 'AIP-155: a retry with the same id returns the first result',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
  @ApiPropertyOptional({
    description: 'Refuse unless every readiness gate holds in the preview report now (as commit)',
  })
  @IsOptional()
  @IsBoolean()
  requireGates?: boolean;
  @ApiPropertyOptional({
    description:
      "The preview report's reportEtag the approver read: refuse (409 ABORTED) if the report changed since; kept in the revision",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  reportEtag?: string;
}

/** AIP-155 request id, on every mutation. */
export class MutationQueryDto implements Pick<CommandContext, 'requestId'> {
  @ApiPropertyOptional({
    description:
      'AIP-155: a retry with the same id returns the first result and does not act twice',
    example: '6f1c…',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
}
export class StopPreviewQueryDto
  extends MutationQueryDto
  implements Pick<PreviewRequest, 'requestId' | 'reason'>
{
  @ApiPropertyOptional({
    description: "Why: recorded on the PreviewStopped event and shown in the experiment's history",
    maxLength: 500,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}
export class UpdateQueryDto
  extends MutationQueryDto
  implements Pick<UpdatePolicyRequest, 'requestId' | 'updateMask'>
{
  @ApiPropertyOptional({
    description: 'Comma-separated fields (AIP-134); without it, the fields present in the body',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  updateMask?: string;
}
export class DeleteQueryDto
  extends MutationQueryDto
  implements Pick<DeleteRequest, 'requestId' | 'etag'>
{
  @ApiPropertyOptional({ description: 'Delete only this version (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
}
export class ListQueryDto implements Pick<ListRequest, 'pageSize' | 'pageToken'> {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1000,
    description: `Default ${LIST_PAGE_SIZES.default}, at most ${LIST_PAGE_SIZES.max}`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1000)
  pageSize?: number;
  @ApiPropertyOptional({ description: 'The nextPageToken of the previous page of the same list' })
  @IsOptional()
  @IsString()
  pageToken?: string;
}

export class HistoryEventDto implements HistoryEvent {
  @ApiProperty({
    example: 'PolicyCommitted',
    description:
      'The event: PolicyCreated, PolicyUpdated, PolicyCommitted (a commit), PolicyRolledBack (a rollback), PolicyDeleted; ExperimentCreated, ExperimentUpdated, PreviewStarted, PreviewStopped, ExperimentCommitted, ExperimentDeleted. A commit and a rollback are published as PolicyUpdated on the bus; the history names them (since experiment.v1 1.6.0)',
  })
  type!: string;
  @ApiProperty() time!: string;
  @ApiProperty({ description: "The aggregate's version after the event" }) version!: number;
  @ApiProperty({ description: 'Who asked' }) actor!: string;
  @ApiPropertyOptional({
    example: '5f0c2a7e-1b3d-4c5e-8f9a-0b1c2d3e4f5a',
    description:
      'The HTTP x-request-id of the call that caused it (recorded since experiment.v1 1.5.0), else its AIP-155 requestId',
  })
  requestId?: string;
  @ApiPropertyOptional({
    example: 'rename-1',
    description: 'The AIP-155 requestId the command carried, when it had one',
  })
  commandRequestId?: string;
  @ApiPropertyOptional({
    example: 'stopAfter: 1000 events evaluated, the limit is 1000',
    description:
      'Why, when the command said (an automatic stop always does; a commit or rollback when given one)',
  })
  reason?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { ticket: 'SEC-42' },
    description:
      "Since experiment.v1 1.6.0, a commit (PolicyCommitted): the experiment's annotations",
  })
  annotations?: Record<string, string>;
}
export class HistoryResponseDto implements ListHistoryEventsResponse {
  @ApiProperty({ type: [HistoryEventDto] }) events!: HistoryEventDto[];
}
export class OperationDto implements Operation {
  @ApiProperty({ example: 'operations/0b9d6c1e-5f7a-4f0e-9d3c-2b1a0e9f8c7d' }) name!: string;
  @ApiProperty() done!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '@type, verb, target, createTime, endTime',
  })
  metadata!: Operation['metadata'];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The experiment (for commit, the live policy; for delete, Empty)',
  })
  response?: Operation['response'];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'google.rpc.Status',
  })
  error?: Operation['error'];
}
