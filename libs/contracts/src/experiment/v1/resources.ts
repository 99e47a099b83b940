/** `experiment.v1`: live firewall policies and their experiments (AIP-236), as clients see them. */

export type Direction = 'INGRESS' | 'EGRESS';
export type RuleAction = 'allow' | 'deny';

export interface Layer4Config {
  /** tcp, udp, icmp, icmpv6, sctp, esp, ah, all, or a protocol number "0".."255". */
  ipProtocol: string;
  /** "443" or "8000-8080"; only for tcp, udp and sctp. Empty: every port. */
  ports?: string[];
}

/**
 * A secure tag, as GCP firewall policies name one: a tag value (`tagValues/281484836404786`), or
 * a workload label as a flow log reports it (Hubble: `k8s:app=web`).
 */
export interface SecureTag {
  name: string;
}

export interface RuleMatch {
  srcIpRanges?: string[];
  destIpRanges?: string[];
  layer4Configs?: Layer4Config[];
  /** The connection's source carries at least one of these; empty: any source. */
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
  /**
   * Output only (experiment.v1 1.3.0): static analysis of the experiment's rules against the live
   * policy, computed when the experiment is created or updated. Absent on experiments written
   * before 1.3.0 until their next update.
   */
  analysis?: ExperimentAnalysis;
  /**
   * Conditions the preview must meet before a commit that asks for them (experiment.v1 1.4.0):
   * the preview report shows each one's current value and whether it holds, and a commit with
   * `requireGates` is refused while any does not. At most MAX_READINESS_GATES.
   */
  readinessGates?: ReadinessGate[];
  /** Stop the preview by itself after a time or a number of evaluated events (since 1.4.0). */
  stopAfter?: PreviewStopAfter;
  /** Stop the preview by itself when it blocks too much of the traffic (since 1.4.0). */
  breaker?: PreviewBreaker;
  /**
   * Output only, on GET (since 1.6.0): the commit proposed for review of this version of the
   * experiment, waiting for another editor's approveCommit. Any change of the experiment drops it.
   */
  commitProposal?: CommitProposal;
}

/** A commit proposed in a project that requires review. */
export interface CommitProposal {
  /** The experiment's etag the proposal was made on. */
  experimentEtag: string;
  proposer: string;
  /** @format date-time */
  proposeTime: string;
  /** The x-request-id (else the AIP-155 request id) of the proposeCommit call. */
  requestId?: string;
  reason?: string;
  /** The reportEtag the proposer saw, if the proposal gave one. */
  reportEtag?: string;
}

/**
 * One readiness gate: exactly one of its fields is set (a oneof). Every gate is judged on the
 * counts of the experiment's latest preview (see the preview report's `readiness`).
 */
export interface ReadinessGate {
  /**
   * The previewed traffic spans at least this long (event time of its last event minus its
   * first): a duration such as "86400s", "90m", "24h" or "7d".
   * @pattern ^[0-9]{1,9}(s|m|h|d)$
   */
  minPreviewDuration?: string;
  /**
   * At least this many events evaluated.
   * @minimum 1
   */
  minEvaluated?: number;
  /**
   * allow→deny at most this share of the evaluated events (0.001 is 0.1%).
   * @minimum 0
   * @maximum 1
   */
  maxAllowToDenyShare?: number;
  /**
   * No deny→allow from a source in this CIDR range (IPv4 or IPv6; 0.0.0.0/0 or ::/0 for any of
   * the family), over the changed flows kept.
   */
  noDenyToAllowFrom?: string;
  /**
   * At most this many messages lost or possibly lost (dead-lettered, dropped by TRAFFIC, or
   * removed undetermined): 0 asks for complete counts.
   * @minimum 0
   */
  maxCompletenessLoss?: number;
}

/** Readiness gates an experiment carries, at most. */
export const MAX_READINESS_GATES = 20;

/** When the preview stops by itself; with both set, whichever comes first. */
export interface PreviewStopAfter {
  /**
   * Time since the preview started (its `previewMetadata.startTime`): "3600s", "90m", "24h", "7d".
   * @pattern ^[0-9]{1,9}(s|m|h|d)$
   */
  duration?: string;
  /**
   * Events evaluated by this preview run.
   * @minimum 1
   */
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
   * Events to evaluate before the breaker may trip, so the first few events alone never stop a
   * preview. Default 100.
   * @minimum 1
   */
  minEvaluated?: number;
}

/** The breaker's minEvaluated when absent. */
export const DEFAULT_BREAKER_MIN_EVALUATED = 100;

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Seconds in a duration of readiness gates and stopAfter ("90m"), or undefined when it is not one:
 * whole numbers of seconds, minutes, hours or days.
 */
export function durationSeconds(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^([0-9]{1,9})(s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]] : undefined;
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
 * source tags × target tags) on which the live policy and the experiment give different actions, each decided
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
  /** The condition on the source's secure tags; absent: whatever source tags the connection carries. */
  srcSecureTags?: AnalysisTarget;
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
  /**
   * The request id of the call that caused it: its HTTP x-request-id (recorded since 1.5.0), else
   * the AIP-155 request id the command carried.
   */
  requestId?: string;
  /** The AIP-155 request id the command carried, when it had one (since 1.5.0). */
  commandRequestId?: string;
  /** Why, when the command gave a reason (since 1.4.0: an automatic stopPreview says what tripped it). */
  reason?: string;
  /** A commit: the experiment's annotations, as the revision keeps them (since 1.6.0). */
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

/** Experiments per live policy, at most (the 11th is RESOURCE_EXHAUSTED). */
export const MAX_EXPERIMENTS_PER_POLICY = 10;
