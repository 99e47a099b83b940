/**
 * `experiment.v1` 1.5.0: rule diffs, revisions of live policies (AIP-162) and their rollback,
 * and the projects that hold policies.
 */
import type { CommandContext, CommitGateEvidence } from './messages';
import type { DifferingRegion, FirewallRule } from './resources';

/** One side of a diff: a revision of the live policy, or an experiment. */
export interface RuleDiffSide {
  /** The revision id, when this side is a revision of the live policy. */
  revision?: string;
  /** The etag of that revision (the policy's etag right after it), or the experiment's. */
  etag: string;
  /** For people: "live rules (revision 3)", "experiment tighten-ssh". */
  label: string;
}

/** One field of a rule that differs between the two sides ("action", "match.srcIpRanges"). */
export interface RuleFieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

/** A rule present on both sides (same priority) with different fields. */
export interface ChangedRule {
  priority: number;
  before: FirewallRule;
  after: FirewallRule;
  fields: RuleFieldChange[];
}

/** A region of connections whose verdict changes, and its description in words. */
export interface VerdictChange {
  /** "tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8" */
  summary: string;
  region: DifferingRegion;
}

/** What the change does to traffic, from the static analysis (exact, disjoint regions). */
export interface SemanticDiff {
  /** allow → deny */
  nowDenied: VerdictChange[];
  /** deny → allow */
  nowAllowed: VerdictChange[];
  /** Some regions are not listed (too many, or the rules too intricate to analyse in bounds). */
  truncated: boolean;
}

/** Rules matched by priority (unique per policy): added, removed, changed field by field. */
export interface RuleDiff {
  from: RuleDiffSide;
  to: RuleDiffSide;
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  unchangedCount: number;
  semantic: SemanticDiff;
}

export type RevisionKind = 'create' | 'update' | 'commit' | 'rollback';

/** Where a revision came from. */
export interface RevisionSource {
  kind: RevisionKind;
  /** commit: the experiment committed (its full name). */
  experiment?: string;
  /** commit: the experiment's etag the commit was made with (recorded since 1.5.0). */
  experimentEtag?: string;
  /** commit: the reportEtag the commit was bound to, if it gave one (since 1.5.0). */
  reportEtag?: string;
  /** commit: the readiness gates it was checked against, if it asked (since 1.5.0). */
  gates?: CommitGateEvidence;
  /** rollback: the revision id whose rules were restored. */
  rolledBackTo?: string;
}

/** `…/firewallPolicies/{policy}/revisions/{revisionId}`: one change of a live policy. */
export interface Revision {
  name: string;
  /** "1", "2", …: the policy's event version that made it, in order (a deletion takes a number too). */
  revisionId: string;
  /** @format date-time */
  createTime: string;
  actor: string;
  /** The HTTP x-request-id of the change (else its AIP-155 request id), when it had one. */
  requestId?: string;
  source: RevisionSource;
  /** The policy's etag right after this revision. */
  etag: string;
  /** The live rules from this revision on; null if the stored event holds no rule body. */
  rules: FirewallRule[] | null;
}

export interface ListRevisionsRequest {
  /** The policy: projects/{project}/locations/{location}/firewallPolicies/{policy} */
  name: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListRevisionsResponse {
  /** Newest first. */
  revisions: Revision[];
  nextPageToken?: string;
}

/** Makes the rules of an older revision live again, as a new revision. */
export interface RollbackRequest extends CommandContext {
  /** The policy. */
  name: string;
  revisionId: string;
  /** The policy's current etag (required): as commit's livePolicyEtag, else ABORTED. */
  etag: string;
}

/** The diff between two revisions of a live policy. */
export interface PolicyDiffRequest {
  name: string;
  fromRevision: string;
  /** Default: the current revision. */
  toRevision?: string;
}

/** Projects the caller may see that hold at least one live policy. */
export interface ListProjectsRequest {
  /** Only these projects (a token limited to projects); absent: every project. */
  projects?: string[];
}

export interface ProjectSummary {
  projectId: string;
  policyCount: number;
}

export interface ListProjectsResponse {
  projects: ProjectSummary[];
}
