import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_EXPERIMENTS_PER_POLICY } from '@rollout/contracts';
import { IsArray, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ExperimentAnalysisDto } from './experiment-analysis.dto';
import { ListQueryDto, MutationQueryDto } from './experiment-operations.dto';
import { FirewallPolicyDto } from './firewall-policy.dto';
import type {
  CommitProposal,
  CreateExperimentRequest,
  FirewallPolicyExperiment,
  ListExperimentsResponse,
  ListRequest,
  PREVIEW_LOG_PREFIX,
  PreviewBreaker,
  PreviewMetadata,
  PreviewState,
  PreviewStopAfter,
  ReadinessGate,
} from '@rollout/contracts';
import type { Writable } from '../contract-binding';

/** HTTP shapes of experiments (experiment.v1); output-only fields sent back are ignored. */
export class PreviewMetadataDto implements PreviewMetadata {
  @ApiProperty({ enum: ['STATE_UNDEFINED', 'ACTIVE', 'SUSPENDED'] }) state!: PreviewState;
  @ApiProperty({ type: String, example: 'FirewallPolicyPreviewLog' })
  logPrefix!: typeof PREVIEW_LOG_PREFIX;
  @ApiPropertyOptional() startTime?: string;
  @ApiPropertyOptional() stopTime?: string;
}

/** One readiness gate: exactly one field set (docs/readiness-gates.md). */
export class ReadinessGateDto implements ReadinessGate {
  @ApiPropertyOptional({
    example: '24h',
    description:
      'The previewed traffic spans at least this much event time: a whole number of s, m, h or d',
  })
  minPreviewDuration?: string;
  @ApiPropertyOptional({
    example: 100000,
    minimum: 1,
    description: 'At least this many events evaluated',
  })
  minEvaluated?: number;
  @ApiPropertyOptional({
    example: 0.001,
    minimum: 0,
    maximum: 1,
    description: 'allow→deny at most this share of evaluated (0.001 is 0.1%)',
  })
  maxAllowToDenyShare?: number;
  @ApiPropertyOptional({
    example: '0.0.0.0/0',
    description: 'No deny→allow from a source in this CIDR range',
  })
  noDenyToAllowFrom?: string;
  @ApiPropertyOptional({
    example: 0,
    minimum: 0,
    description:
      'At most this many messages lost or possibly lost (dead-lettered, dropped by TRAFFIC, undetermined)',
  })
  maxCompletenessLoss?: number;
}
export class PreviewStopAfterDto implements PreviewStopAfter {
  @ApiPropertyOptional({
    example: '24h',
    description: 'Time since the preview started: a whole number of s, m, h or d',
  })
  duration?: string;
  @ApiPropertyOptional({
    example: 1000000,
    minimum: 1,
    description: 'Events evaluated by this preview run',
  })
  evaluatedEvents?: number;
}
export class PreviewBreakerDto implements PreviewBreaker {
  @ApiProperty({
    example: 0.01,
    minimum: 0,
    maximum: 1,
    description: 'Stop when allowToDeny / evaluated is above this',
  })
  maxAllowToDenyShare!: number;
  @ApiPropertyOptional({
    example: 100,
    minimum: 1,
    description: 'Events to evaluate before the breaker may trip (default 100)',
  })
  minEvaluated?: number;
}

export class CommitProposalDto implements CommitProposal {
  @ApiProperty({ description: "The experiment's etag the proposal was made on" })
  experimentEtag!: string;
  @ApiProperty({ example: 'alice' }) proposer!: string;
  @ApiProperty({ format: 'date-time' }) proposeTime!: string;
  @ApiPropertyOptional({ example: 'propose-7f3a' }) requestId?: string;
  @ApiPropertyOptional({ example: 'SEC-42: no SSH from the internet' }) reason?: string;
  @ApiPropertyOptional() reportEtag?: string;
}

export class ExperimentDto implements Writable<FirewallPolicyExperiment> {
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({
    type: FirewallPolicyDto,
    description:
      "The full policy under test; its name is the live policy's (filled in when omitted). At creation, every field but the rules that is not given (displayName, description) is copied from the live policy (or from sourceRevision), so a commit replaces only what the experiment changes",
  })
  @IsOptional()
  @IsObject()
  firewallPolicy?: FirewallPolicyDto;
  @ApiPropertyOptional({
    example: '3',
    writeOnly: true,
    description:
      'Create only: start as a copy of this revision of the live policy (its display name, description and rules; firewallPolicy.rules may then not be given), e.g. to preview a rollback',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[1-9][0-9]{0,9}$/)
  sourceRevision?: string;
  @ApiPropertyOptional({
    type: PreviewMetadataDto,
    readOnly: true,
    description: 'Absent until the first startPreview',
  })
  @IsOptional()
  @IsObject()
  previewMetadata?: PreviewMetadataDto;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'At most 64 entries, keys up to 63 characters, 16 KiB in all',
  })
  @IsOptional()
  @IsObject()
  annotations?: Record<string, string>;
  @ApiPropertyOptional({
    type: [ReadinessGateDto],
    description:
      'Conditions shown in the preview report and required by a commit with requireGates (at most 20)',
  })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  readinessGates?: ReadinessGateDto[];
  @ApiPropertyOptional({
    type: PreviewStopAfterDto,
    description: 'The evaluator stops the preview by itself after this (whichever comes first)',
  })
  @IsOptional()
  @IsObject()
  stopAfter?: PreviewStopAfterDto;
  @ApiPropertyOptional({
    type: PreviewBreakerDto,
    description:
      'The evaluator stops the preview by itself when allow→deny exceeds this share of evaluated',
  })
  @IsOptional()
  @IsObject()
  breaker?: PreviewBreakerDto;
  @ApiPropertyOptional({ description: 'On update: must be the current etag (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() createTime?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() updateTime?: string;
  @ApiPropertyOptional({
    type: ExperimentAnalysisDto,
    readOnly: true,
    description:
      'Since experiment.v1 1.3.0: static analysis against the live policy, computed at create and update (see docs/static-analysis.md)',
  })
  @IsOptional()
  @IsObject()
  analysis?: ExperimentAnalysisDto;
  @ApiPropertyOptional({
    type: CommitProposalDto,
    readOnly: true,
    description:
      'Since experiment.v1 1.6.0, on GET: the commit proposed for this version of the experiment, waiting for another editor’s approveCommit',
  })
  @IsOptional()
  @IsObject()
  commitProposal?: CommitProposalDto;
}

export class CreateExperimentQueryDto
  extends MutationQueryDto
  implements Pick<CreateExperimentRequest, 'requestId' | 'experimentId'>
{
  @ApiProperty({
    description: `AIP-122 id; at most ${MAX_EXPERIMENTS_PER_POLICY} experiments per policy (the next is 429 RESOURCE_EXHAUSTED)`,
  })
  @IsString()
  @MaxLength(63)
  experimentId!: string;
}
export class ListExperimentsQueryDto
  extends ListQueryDto
  implements Pick<ListRequest, 'pageSize' | 'pageToken' | 'filter'>
{
  @ApiPropertyOptional({
    example: 'previewMetadata.state = ACTIVE',
    description:
      'AIP-160 subset: previewMetadata.state (or preview_metadata.state) = / != STATE, joined by AND',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  filter?: string;
}

export class ListExperimentsResponseDto implements Writable<ListExperimentsResponse> {
  @ApiProperty({ type: [ExperimentDto] }) experiments!: ExperimentDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
