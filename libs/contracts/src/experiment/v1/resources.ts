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
}

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
