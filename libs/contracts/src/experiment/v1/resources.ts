/** `experiment.v1`: live firewall policies and their experiments (AIP-236), as clients see them. */

export type Direction = 'INGRESS' | 'EGRESS';
export type RuleAction = 'allow' | 'deny';

export interface Layer4Config {
  /** tcp, udp, icmp, icmpv6, sctp, esp, ah, all, or a protocol number "0".."255". */
  ipProtocol: string;
  /** "443" or "8000-8080"; only for tcp, udp and sctp. Empty: every port. */
  ports?: string[];
}

export interface RuleMatch {
  srcIpRanges?: string[];
  destIpRanges?: string[];
  layer4Configs?: Layer4Config[];
}

export interface FirewallRule {
  /** 0–65535, lower wins; unique within a policy. */
  priority: number;
  direction: Direction;
  action: RuleAction;
  match: RuleMatch;
  targetTags?: string[];
  description?: string;
  disabled?: boolean;
}

/** The part of a policy a user writes; a policy without rules is the no-op policy. */
export interface PolicyContent {
  displayName?: string;
  description?: string;
  rules: FirewallRule[];
}

/** `projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}` */
export interface FirewallPolicy extends PolicyContent {
  name: string;
  etag: string;
  createTime: string;
  updateTime: string;
}

export type PreviewState = 'STATE_UNDEFINED' | 'ACTIVE' | 'SUSPENDED';
export const PREVIEW_LOG_PREFIX = 'FirewallPolicyPreviewLog';

export interface PreviewMetadata {
  state: PreviewState;
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  startTime?: string;
  stopTime?: string;
}

/** `…/firewallPolicies/{firewallPolicy}/experiments/{experiment}` */
export interface FirewallPolicyExperiment {
  name: string;
  /** The full policy under test; its name is the live policy's name. */
  firewallPolicy: PolicyContent & { name: string };
  /** Absent until the first startPreview. */
  previewMetadata?: PreviewMetadata;
  annotations: Record<string, string>;
  etag: string;
  createTime: string;
  updateTime: string;
  /**
   * Output only (experiment.v1 1.3.0): static analysis of the experiment's rules against the live
   * policy, computed when the experiment is created or updated. Absent on experiments written
   * before 1.3.0 until their next update.
   */
  analysis?: ExperimentAnalysis;
}

/** A verdict as the firewall engine gives it: the deciding rule's priority, or the implied rule. */
export interface AnalysisVerdict {
  action: RuleAction;
  /** null when no rule matched and the implied rule decided (INGRESS deny, EGRESS allow). */
  rulePriority: number | null;
  implied: boolean;
}

/** One protocol/port part of a region. */
export interface AnalysisLayer4 {
  /** `all`, protocol names (tcp, udp, icmp, icmpv6, sctp, esp, ah), numbers ("47") or number ranges ("18-49"). */
  ipProtocols: string[];
  /** Destination ports ("22", "8000-8080"). Absent: every port and connections without a port. */
  ports?: string[];
  /** With `ports`: connections without a destination port are in the region too. */
  portless?: boolean;
}

/** The target-tag condition of a region: every connection whose tags satisfy both parts. */
export interface AnalysisTarget {
  /** The connection carries none of these tags. */
  tagsAbsent?: string[];
  /** For each list, the connection carries at least one of its tags. */
  anyTagOf?: string[][];
}

/**
 * A set of connections (direction × source ranges × destination ranges × protocols/ports ×
 * target tags) on which the live policy and the experiment give different actions, each decided
 * by the one rule named (the same rule decides every connection of the region).
 */
export interface DifferingRegion {
  direction: Direction;
  /** CIDR ranges, IPv4 and IPv6; the region holds every source address in them. */
  srcIpRanges: string[];
  destIpRanges: string[];
  /** A connection's protocol and destination port lie in one of these. */
  layer4Configs: AnalysisLayer4[];
  /** Absent: whatever tags the connection carries. */
  target?: AnalysisTarget;
  liveVerdict: AnalysisVerdict;
  experimentVerdict: AnalysisVerdict;
}

/** An enabled experiment rule that decides no connection: higher-priority rules match all it matches. */
export interface ShadowedRule {
  priority: number;
  direction: Direction;
  /** The experiment's higher-priority rules that decide the connections it matches. */
  coveredBy: number[];
}

export interface ExperimentAnalysis {
  /** The live policy's etag the experiment was compared with. */
  livePolicyEtag: string;
  shadowedRules: ShadowedRule[];
  /** Exact and disjoint, at most MAX_DIFFERING_REGIONS; the rest are counted in regionsOmitted. */
  differingRegions: DifferingRegion[];
  regionsOmitted: number;
  /**
   * false when the policies were too intricate to analyse within the work bound: then no
   * region or shadowed rule is listed, and none should be inferred from the empty lists.
   */
  complete: boolean;
}

/** Differing regions listed in an analysis, at most. */
export const MAX_DIFFERING_REGIONS = 100;

/** `operations/{id}` (AIP-151). Mutations of experiments return one. */
export interface Operation<T = unknown> {
  name: string;
  done: boolean;
  metadata: { '@type': string; verb: string; target: string; createTime: string; endTime?: string };
  response?: T & { '@type': string };
  error?: import('../../status').Status;
}

/** One event of an aggregate's history, as `GET …/events` lists it. */
export interface HistoryEvent {
  type: string;
  time: string;
  version: number;
  actor: string;
  requestId?: string;
}

export interface ListPoliciesResponse {
  firewallPolicies: FirewallPolicy[];
  nextPageToken?: string;
}

export interface ListExperimentsResponse {
  experiments: FirewallPolicyExperiment[];
  nextPageToken?: string;
}

/** Experiments per live policy, at most (the 11th is RESOURCE_EXHAUSTED). */
export const MAX_EXPERIMENTS_PER_POLICY = 10;
