export type Direction = 'INGRESS' | 'EGRESS';
export type RuleAction = 'allow' | 'deny';

export interface Layer4Config {
  /** tcp, udp, icmp, icmpv6, sctp, esp, ah, all, or a protocol number "0".."255". */
  ipProtocol: string;
  /** "443" or "8000-8080"; only for tcp, udp and sctp. Empty: every port. */
  ports?: string[];
}

/** A GCP tag value (`tagValues/281484836404786`), or a Hubble workload label (`k8s:app=web`). */
export interface SecureTag {
  name: string;
}

export interface RuleMatch {
  srcIpRanges?: string[];
  destIpRanges?: string[];
  layer4Configs?: Layer4Config[];
  /** The source carries at least one of these; empty: any source. */
  srcSecureTags?: SecureTag[];
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
  /** Output only (since 1.3.0), computed on create and update: older ones lack it until updated. */
  analysis?: ExperimentAnalysis;
  /** Since 1.4.0: a commit with `requireGates` is refused while any does not hold. At most 20. */
  readinessGates?: ReadinessGate[];
  /** Since 1.4.0. */
  stopAfter?: PreviewStopAfter;
  /** Since 1.4.0. */
  breaker?: PreviewBreaker;
  /** Output only, on GET (since 1.6.0): awaits another editor's approval; any change drops it. */
  commitProposal?: CommitProposal;
}

/** A commit proposed in a project that requires review. */
export interface CommitProposal {
  experimentEtag: string;
  proposer: string;
  /** @format date-time */
  proposeTime: string;
  /** The x-request-id, else the AIP-155 request id. */
  requestId?: string;
  reason?: string;
  reportEtag?: string;
}

/** A oneof, judged on the experiment's latest preview. */
export interface ReadinessGate {
  /**
   * From the first previewed event's time to the last: "86400s", "90m", "24h" or "7d".
   * @pattern ^[0-9]{1,9}(s|m|h|d)$
   */
  minPreviewDuration?: string;
  /** @minimum 1 */
  minEvaluated?: number;
  /**
   * allow→deny at most this share of the evaluated events (0.001 is 0.1%).
   * @minimum 0
   * @maximum 1
   */
  maxAllowToDenyShare?: number;
  /** No deny→allow from this CIDR range (0.0.0.0/0 or ::/0 for any), over the kept flows. */
  noDenyToAllowFrom?: string;
  /**
   * Messages lost or possibly lost; 0 asks for complete counts.
   * @minimum 0
   */
  maxCompletenessLoss?: number;
}

export const MAX_READINESS_GATES = 20;

/** When the preview stops by itself; with both set, whichever comes first. */
export interface PreviewStopAfter {
  /**
   * Since `previewMetadata.startTime`: "3600s", "90m", "24h", "7d".
   * @pattern ^[0-9]{1,9}(s|m|h|d)$
   */
  duration?: string;
  /** @minimum 1 */
  evaluatedEvents?: number;
}

/** Stops the preview when allow→deny exceeds a share of the evaluated events. */
export interface PreviewBreaker {
  /**
   * Trips when allowToDeny / evaluated is above this (0.01 is 1%).
   * @minimum 0
   * @maximum 1
   */
  maxAllowToDenyShare: number;
  /**
   * So the first few events alone never stop a preview. Default 100.
   * @minimum 1
   */
  minEvaluated?: number;
}

export const DEFAULT_BREAKER_MIN_EVALUATED = 100;

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export function durationSeconds(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^([0-9]{1,9})(s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]] : undefined;
}

export interface AnalysisVerdict {
  action: RuleAction;
  /** null: the implied rule decided (INGRESS deny, EGRESS allow). */
  rulePriority: number | null;
  implied: boolean;
}

export interface AnalysisLayer4 {
  /** `all`, names (tcp, udp…), numbers ("47") or ranges ("18-49"). */
  ipProtocols: string[];
  /** Absent: every port, and connections without one. */
  ports?: string[];
  /** With `ports`: connections without a port are in too. */
  portless?: boolean;
}

/** A connection is in when its tags satisfy both parts. */
export interface AnalysisTarget {
  /** None of these. */
  tagsAbsent?: string[];
  /** At least one tag of each list. */
  anyTagOf?: string[][];
}

/** Connections on which live and experiment act differently, each side by the one rule named. */
export interface DifferingRegion {
  direction: Direction;
  /** CIDR, IPv4 and IPv6. */
  srcIpRanges: string[];
  destIpRanges: string[];
  layer4Configs: AnalysisLayer4[];
  /** Absent: any tags. */
  target?: AnalysisTarget;
  /** Absent: any source tags. */
  srcSecureTags?: AnalysisTarget;
  liveVerdict: AnalysisVerdict;
  experimentVerdict: AnalysisVerdict;
}

/** An enabled rule that higher-priority rules fully cover. */
export interface ShadowedRule {
  priority: number;
  direction: Direction;
  coveredBy: number[];
}

export interface ExperimentAnalysis {
  livePolicyEtag: string;
  shadowedRules: ShadowedRule[];
  /** Exact and disjoint, at most 100. */
  differingRegions: DifferingRegion[];
  regionsOmitted: number;
  /** false past the work bound: the empty lists then mean nothing. */
  complete: boolean;
}

export const MAX_DIFFERING_REGIONS = 100;

/** AIP-151. */
export interface Operation<T = unknown> {
  name: string;
  done: boolean;
  metadata: { '@type': string; verb: string; target: string; createTime: string; endTime?: string };
  response?: T & { '@type': string };
  error?: import('../../status').Status;
}

export interface HistoryEvent {
  type: string;
  time: string;
  version: number;
  actor: string;
  /** The HTTP x-request-id (since 1.5.0), else the AIP-155 request id. */
  requestId?: string;
  /** AIP-155 (since 1.5.0). */
  commandRequestId?: string;
  /** Since 1.4.0: an automatic stopPreview says what tripped it. */
  reason?: string;
  /** A commit's (since 1.6.0). */
  annotations?: Record<string, string>;
}

export interface ListPoliciesResponse {
  firewallPolicies: FirewallPolicy[];
  nextPageToken?: string;
}

export interface ListExperimentsResponse {
  experiments: FirewallPolicyExperiment[];
  nextPageToken?: string;
}

export const MAX_EXPERIMENTS_PER_POLICY = 10;
