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

/**
 * One field that differs between the two sides: of a rule ("action", "match.srcIpRanges") or of
 * the policy itself ("displayName", "description").
 */
export interface RuleFieldChange {
  field: string;
  /** As written on the `from` side; absent when the field is not set there. */
  before?: unknown;
  /** As written on the `to` side; absent when the field is not set there. */
  after?: unknown;
  /**
   * A list field (since 1.6.0): the elements only `from` has, in normal form (CIDR blocks,
   * `tcp/22`, tags), so a reviewer reads `- "22" + "2222"` rather than two whole lists.
   */
  removedElements?: string[];
  /** A list field (since 1.6.0): the elements only `to` has, in normal form. */
  addedElements?: string[];
}

/**
 * A rule written differently on the two sides that means the same (since 1.6.0): its ranges or
 * ports reordered, merged or split, a protocol number for its name, a default spelled out. It is
 * counted in `unchangedCount` and is never a change to review.
 */
export interface RewrittenRule {
  priority: number;
  before: FirewallRule;
  after: FirewallRule;
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

/**
 * The whole resource compared: the policy's own fields in `policyFields`, its rules matched by
 * priority (unique per policy): added, removed, changed field by field after normalisation.
 */
export interface RuleDiff {
  from: RuleDiffSide;
  to: RuleDiffSide;
  /**
   * The policy's fields other than its rules that differ (since 1.6.0): displayName,
   * description, and any field the policy gains later. Empty when they are the same.
   */
  policyFields?: RuleFieldChange[];
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  /** Rules that mean the same on both sides, rewritten ones included. */
  unchangedCount: number;
  /** The unchanged rules that are written differently (since 1.6.0). */
  rewritten?: RewrittenRule[];
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
  /** rollback: the revision id whose resource was restored. */
  rolledBackTo?: string;
  /** commit and rollback: why, as the caller gave it (since 1.6.0). */
  reason?: string;
  /** commit: the experiment's annotations when it was committed, e.g. a ticket (since 1.6.0). */
  annotations?: Record<string, string>;
  /** commit: who proposed and who approved it, when the project requires review (since 1.6.0). */
  review?: CommitReview;
}

/** A reviewed commit: the proposal and its approval, each with who and the call that made it. */
export interface CommitReview {
  proposer: string;
  /** The x-request-id (else the AIP-155 request id) of the proposeCommit call. */
  proposerRequestId?: string;
  /** @format date-time */
  proposeTime: string;
  approver: string;
  /** The x-request-id (else the AIP-155 request id) of the approveCommit call. */
  approverRequestId?: string;
  /** @format date-time */
  approveTime: string;
  /** The reportEtag the proposal was bound to, if it gave one. */
  proposedReportEtag?: string;
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
  /** The live display name from this revision on, when it had one (listed since 1.6.0). */
  displayName?: string;
  /** The live description from this revision on, when it had one (listed since 1.6.0). */
  description?: string;
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

/** Makes the whole resource of an older revision live again, as a new revision. */
export interface RollbackRequest extends CommandContext {
  /** The policy. */
  name: string;
  revisionId: string;
  /** The policy's current etag (required): as commit's livePolicyEtag, else ABORTED. */
  etag: string;
  /**
   * Why (since 1.6.0), kept in the revision and its history entry.
   * @maxLength 1000
   */
  reason?: string;
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
