import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FirewallRuleDto } from './firewall-policy.dto';
import type {
  ChangedRule,
  CommitReview,
  RewrittenRule,
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
  'revisionId' | 'etag' | 'requestId' | 'reason'
> {
  @ApiProperty({
    example: '1',
    description:
      'The revision whose whole resource (display name, description, rules) becomes live again',
  })
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
  @ApiPropertyOptional({
    example: 'INC-7: SSH blocked for the on-call bastion',
    description:
      'Since experiment.v1 1.6.0: why, kept in the revision and its history entry (at most 1000 characters)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class RuleDiffSideDto implements RuleDiffSide {
  @ApiPropertyOptional({ example: '3', description: 'The revision, when this side is one' })
  revision?: string;
  @ApiProperty({ example: 'Xq3tY7pQ0aL2mN5bV8cR1w' }) etag!: string;
  @ApiProperty({ example: 'live policy (revision 3)' }) label!: string;
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
  @ApiPropertyOptional({
    type: [String],
    example: ['tcp/22'],
    description:
      'Since experiment.v1 1.6.0, a list field: the elements only `before` has, in normal form (CIDR blocks, `proto/ports`, tags)',
  })
  removedElements?: string[];
  @ApiPropertyOptional({
    type: [String],
    example: ['tcp/2222'],
    description: 'Since experiment.v1 1.6.0, a list field: the elements only `after` has',
  })
  addedElements?: string[];
}

export class RewrittenRuleDto implements RewrittenRule {
  @ApiProperty({ example: 100 }) priority!: number;
  @ApiProperty({
    type: FirewallRuleDto,
    example: {
      ...SSH_OPEN,
      match: { ...SSH_OPEN.match, layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }] },
    },
  })
  before!: FirewallRuleDto;
  @ApiProperty({
    type: FirewallRuleDto,
    example: {
      ...SSH_OPEN,
      disabled: false,
      match: { ...SSH_OPEN.match, layer4Configs: [{ ipProtocol: '6', ports: ['443', '22'] }] },
    },
  })
  after!: FirewallRuleDto;
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
  @ApiPropertyOptional({
    type: [RuleFieldChangeDto],
    example: [{ field: 'description', before: 'Internet edge', after: 'Internet edge, no SSH' }],
    description:
      "Since experiment.v1 1.6.0: the policy's own fields that differ (displayName, description, any later field); a commit replaces them too",
  })
  policyFields?: RuleFieldChangeDto[];
  @ApiProperty({ type: [FirewallRuleDto] }) added!: FirewallRuleDto[];
  @ApiProperty({ type: [FirewallRuleDto] }) removed!: FirewallRuleDto[];
  @ApiProperty({ type: [ChangedRuleDto], description: 'Matched by priority, field by field' })
  changed!: ChangedRuleDto[];
  @ApiProperty({
    example: 4,
    description: 'Rules that mean the same on both sides, rewritten ones included',
  })
  unchangedCount!: number;
  @ApiPropertyOptional({
    type: [RewrittenRuleDto],
    description:
      'Since experiment.v1 1.6.0: unchanged rules written differently (ranges or ports reordered, "6" for "tcp", defaults spelled out): nothing to review',
  })
  rewritten?: RewrittenRuleDto[];
  @ApiProperty({ type: SemanticDiffDto }) semantic!: SemanticDiffDto;
}

export class CommitReviewDto implements CommitReview {
  @ApiProperty({ example: 'alice' }) proposer!: string;
  @ApiPropertyOptional({ example: 'propose-7f3a' }) proposerRequestId?: string;
  @ApiProperty({ format: 'date-time' }) proposeTime!: string;
  @ApiProperty({ example: 'bob' }) approver!: string;
  @ApiPropertyOptional({ example: 'approve-91c2' }) approverRequestId?: string;
  @ApiProperty({ format: 'date-time' }) approveTime!: string;
  @ApiPropertyOptional({ description: 'The reportEtag the proposal was bound to' })
  proposedReportEtag?: string;
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
  @ApiPropertyOptional({
    example: 'SEC-42: no SSH from the internet',
    description: 'Since experiment.v1 1.6.0, commit and rollback: why, as the caller gave it',
  })
  reason?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { ticket: 'SEC-42' },
    description: "Since experiment.v1 1.6.0, commit: the experiment's annotations",
  })
  annotations?: Record<string, string>;
  @ApiPropertyOptional({
    type: CommitReviewDto,
    description:
      'Since experiment.v1 1.6.0, a reviewed commit: who proposed and who approved it, with their request ids',
  })
  review?: CommitReviewDto;
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
  @ApiPropertyOptional({
    example: 'Internet edge',
    description: 'Since experiment.v1 1.6.0: the live display name from this revision on',
  })
  displayName?: string;
  @ApiPropertyOptional({
    example: 'Web tier, SSH from the VPN only',
    description: 'Since experiment.v1 1.6.0: the live description from this revision on',
  })
  description?: string;
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
