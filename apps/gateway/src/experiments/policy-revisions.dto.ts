import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FirewallRuleDto } from './firewall-policy.dto';
import type {
  ChangedRule,
  ListProjectsResponse,
  ListRevisionsResponse,
  PolicyDiffRequest,
  ProjectSummary,
  Revision,
  RevisionKind,
  RevisionSource,
  RollbackRequest,
  RuleDiff,
  RuleDiffSide,
  RuleFieldChange,
  SemanticDiff,
  VerdictChange,
} from '@rollout/contracts';

const REVISION_ID = /^[1-9][0-9]{0,9}$/;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A rule field's value: a string, a number, a boolean, a list or an object. */
const ANY_JSON = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'array', items: {} },
  { type: 'object' },
];

const SSH_OPEN = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};
const SSH_OFFICE = { ...SSH_OPEN, match: { ...SSH_OPEN.match, srcIpRanges: ['10.0.0.0/8'] } };

export class PolicyDiffQueryDto implements Pick<PolicyDiffRequest, 'fromRevision' | 'toRevision'> {
  @ApiProperty({ example: '1', description: 'The revision to compare from (required)' })
  @IsString()
  @Matches(REVISION_ID)
  fromRevision!: string;
  @ApiPropertyOptional({
    example: '3',
    description: 'The revision to compare to; default: the current one',
  })
  @IsOptional()
  @IsString()
  @Matches(REVISION_ID)
  toRevision?: string;
}

export class RollbackRequestDto implements Pick<
  RollbackRequest,
  'revisionId' | 'etag' | 'requestId'
> {
  @ApiProperty({ example: '1', description: 'The revision whose rules become live again' })
  @IsString()
  @Matches(REVISION_ID)
  revisionId!: string;
  @ApiProperty({
    example: 'Xq3tY7pQ0aL2mN5bV8cR1w',
    description: "The live policy's current etag (required): stale is 409 ABORTED, as for commit",
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  etag!: string;
  @ApiPropertyOptional({
    description: 'AIP-155: a retry with the same id returns the first result',
  })
  @IsOptional()
  @Matches(REQUEST_ID)
  requestId?: string;
}

export class RuleDiffSideDto implements RuleDiffSide {
  @ApiPropertyOptional({ example: '3', description: 'The revision, when this side is one' })
  revision?: string;
  @ApiProperty({ example: 'Xq3tY7pQ0aL2mN5bV8cR1w' }) etag!: string;
  @ApiProperty({ example: 'live rules (revision 3)' }) label!: string;
}

export class RuleFieldChangeDto implements RuleFieldChange {
  @ApiProperty({ example: 'match.srcIpRanges' }) field!: string;
  @ApiPropertyOptional({
    oneOf: ANY_JSON,
    example: ['0.0.0.0/0'],
    description: 'Absent: the field was not set',
  })
  before?: unknown;
  @ApiPropertyOptional({
    oneOf: ANY_JSON,
    example: ['10.0.0.0/8'],
    description: 'Absent: the field is not set',
  })
  after?: unknown;
}

export class ChangedRuleDto implements ChangedRule {
  @ApiProperty({ example: 100 }) priority!: number;
  @ApiProperty({ type: FirewallRuleDto, example: SSH_OPEN }) before!: FirewallRuleDto;
  @ApiProperty({ type: FirewallRuleDto, example: SSH_OFFICE }) after!: FirewallRuleDto;
  @ApiProperty({ type: [RuleFieldChangeDto] }) fields!: RuleFieldChangeDto[];
}

export class VerdictChangeDto implements VerdictChange {
  @ApiProperty({ example: 'tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8' })
  summary!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The region, as the static analysis gives it: direction, srcIpRanges, destIpRanges, layer4Configs, target, liveVerdict, experimentVerdict',
  })
  region!: VerdictChange['region'];
}

export class SemanticDiffDto implements SemanticDiff {
  @ApiProperty({ type: [VerdictChangeDto], description: 'allow → deny' })
  nowDenied!: VerdictChangeDto[];
  @ApiProperty({ type: [VerdictChangeDto], description: 'deny → allow' })
  nowAllowed!: VerdictChangeDto[];
  @ApiProperty({
    description: 'Some regions are not listed (too many, or too intricate to analyse)',
  })
  truncated!: boolean;
}

export class RuleDiffDto implements RuleDiff {
  @ApiProperty({ type: RuleDiffSideDto }) from!: RuleDiffSideDto;
  @ApiProperty({ type: RuleDiffSideDto }) to!: RuleDiffSideDto;
  @ApiProperty({ type: [FirewallRuleDto] }) added!: FirewallRuleDto[];
  @ApiProperty({ type: [FirewallRuleDto] }) removed!: FirewallRuleDto[];
  @ApiProperty({ type: [ChangedRuleDto], description: 'Matched by priority, field by field' })
  changed!: ChangedRuleDto[];
  @ApiProperty({ example: 4 }) unchangedCount!: number;
  @ApiProperty({ type: SemanticDiffDto }) semantic!: SemanticDiffDto;
}

export class RevisionSourceDto implements RevisionSource {
  @ApiProperty({ enum: ['create', 'update', 'commit', 'rollback'] }) kind!: RevisionKind;
  @ApiPropertyOptional({
    example: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh',
  })
  experiment?: string;
  @ApiPropertyOptional({ description: "commit: the experiment's etag it was made with" })
  experimentEtag?: string;
  @ApiPropertyOptional({ description: 'commit: the reportEtag it was bound to' })
  reportEtag?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'commit: { required, gates: [{ kind, holds, description }] } as judged then',
  })
  gates?: RevisionSource['gates'];
  @ApiPropertyOptional({ example: '1', description: 'rollback: the revision restored' })
  rolledBackTo?: string;
}

export class RevisionDto implements Revision {
  @ApiProperty({ example: 'projects/acme/locations/global/firewallPolicies/edge/revisions/3' })
  name!: string;
  @ApiProperty({ example: '3' }) revisionId!: string;
  @ApiProperty({ format: 'date-time' }) createTime!: string;
  @ApiProperty({ example: 'alice' }) actor!: string;
  @ApiPropertyOptional({ description: 'The HTTP x-request-id of the change' }) requestId?: string;
  @ApiProperty({ type: RevisionSourceDto }) source!: RevisionSourceDto;
  @ApiProperty({ description: "The policy's etag right after this revision" }) etag!: string;
  @ApiProperty({
    type: [FirewallRuleDto],
    nullable: true,
    description: 'null only if the stored event holds no rule body',
  })
  rules!: FirewallRuleDto[] | null;
}

export class ListRevisionsResponseDto implements ListRevisionsResponse {
  @ApiProperty({ type: [RevisionDto], description: 'Newest first' }) revisions!: RevisionDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}

export class ProjectSummaryDto implements ProjectSummary {
  @ApiProperty({ example: 'acme' }) projectId!: string;
  @ApiProperty({ example: 3 }) policyCount!: number;
}

export class ListProjectsResponseDto implements ListProjectsResponse {
  @ApiProperty({ type: [ProjectSummaryDto] }) projects!: ProjectSummaryDto[];
}
