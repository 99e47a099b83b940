/** Since 1.5.0; revisions as AIP-162 has them. */
import type { CommandContext, CommitGateEvidence } from './messages';
import type { DifferingRegion, FirewallRule } from './resources';

export interface RuleDiffSide {
  /** Absent for an experiment. */
  revision?: string;
  etag: string;
  /** For people: "live rules (revision 3)", "experiment tighten-ssh". */
  label: string;
}

export interface RuleFieldChange {
  /** Of a rule ("match.srcIpRanges") or of the policy ("displayName"). */
  field: string;
  /** Absent when not set. */
  before?: unknown;
  /** Absent when not set. */
  after?: unknown;
  /** Since 1.6.0, in normal form, so a reviewer reads `- "22" + "2222"`, not two lists. */
  removedElements?: string[];
  /** Since 1.6.0. */
  addedElements?: string[];
}

/** Written differently, meaning the same (since 1.6.0): never a change to review. */
export interface RewrittenRule {
  priority: number;
  before: FirewallRule;
  after: FirewallRule;
}

export interface ChangedRule {
  priority: number;
  before: FirewallRule;
  after: FirewallRule;
  fields: RuleFieldChange[];
}

export interface VerdictChange {
  /** "tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8" */
  summary: string;
  region: DifferingRegion;
}

export interface SemanticDiff {
  /** allow → deny */
  nowDenied: VerdictChange[];
  /** deny → allow */
  nowAllowed: VerdictChange[];
  /** Too many regions, or rules too intricate to analyse in bounds. */
  truncated: boolean;
}

/** Rules matched by priority, compared after normalisation. */
export interface RuleDiff {
  from: RuleDiffSide;
  to: RuleDiffSide;
  /** The policy's own fields that differ (since 1.6.0). */
  policyFields?: RuleFieldChange[];
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  /** Rewritten ones included. */
  unchangedCount: number;
  /** Since 1.6.0. */
  rewritten?: RewrittenRule[];
  semantic: SemanticDiff;
}

export type RevisionKind = 'create' | 'update' | 'commit' | 'rollback';

export interface RevisionSource {
  kind: RevisionKind;
  /** commit. */
  experiment?: string;
  /** commit (since 1.5.0). */
  experimentEtag?: string;
  /** commit (since 1.5.0). */
  reportEtag?: string;
  /** commit (since 1.5.0). */
  gates?: CommitGateEvidence;
  /** rollback. */
  rolledBackTo?: string;
  /** commit and rollback (since 1.6.0). */
  reason?: string;
  /** commit, e.g. a ticket (since 1.6.0). */
  annotations?: Record<string, string>;
  /** commit, when the project requires review (since 1.6.0). */
  review?: CommitReview;
}

export interface CommitReview {
  proposer: string;
  /** The x-request-id, else the AIP-155 request id. */
  proposerRequestId?: string;
  /** @format date-time */
  proposeTime: string;
  approver: string;
  /** The x-request-id, else the AIP-155 request id. */
  approverRequestId?: string;
  /** @format date-time */
  approveTime: string;
  proposedReportEtag?: string;
}

/** `…/firewallPolicies/{policy}/revisions/{revisionId}` */
export interface Revision {
  name: string;
  /** The policy's event version: "1", "2", … (a deletion takes a number too). */
  revisionId: string;
  /** @format date-time */
  createTime: string;
  actor: string;
  /** The x-request-id, else the AIP-155 request id. */
  requestId?: string;
  source: RevisionSource;
  etag: string;
  /** Since 1.6.0. */
  displayName?: string;
  /** Since 1.6.0. */
  description?: string;
  /** null if the stored event holds no rule body. */
  rules: FirewallRule[] | null;
}

export interface ListRevisionsRequest {
  /** The policy's. */
  name: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListRevisionsResponse {
  /** Newest first. */
  revisions: Revision[];
  nextPageToken?: string;
}

/** Restores an older revision's whole resource as a new revision. */
export interface RollbackRequest extends CommandContext {
  name: string;
  revisionId: string;
  /** The policy's current etag, else ABORTED. */
  etag: string;
  /**
   * Since 1.6.0.
   * @maxLength 1000
   */
  reason?: string;
}

export interface PolicyDiffRequest {
  name: string;
  fromRevision: string;
  /** Default: the current revision. */
  toRevision?: string;
}

/** Projects holding a live policy. */
export interface ListProjectsRequest {
  /** For a token limited to projects; absent: every project. */
  projects?: string[];
}

export interface ProjectSummary {
  projectId: string;
  policyCount: number;
}

export interface ListProjectsResponse {
  projects: ProjectSummary[];
}
