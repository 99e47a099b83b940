import type { DifferingRegion } from '../../experiment/v1/resources';
import type { ContractPackage } from '../../packages';
import type { PreviewDisagreement } from './disagreements';
import type { PreviewVerdict } from './logs';
import type { PreviewReadiness } from './readiness';

/**
 * `preview.v1`: every traffic event of a live policy, evaluated against each ACTIVE experiment,
 * logged on `PREVIEW_LOGS`; a consumer of `preview.v1.logs.>` tells the logs apart by the
 * subject's length (5, 3 and 4 tokens after `logs`) and deduplicates on each record's `id`.
 * A configuration is one (experiment etag, live policy etag) pair.
 */
export const PREVIEW_V1: ContractPackage = { name: 'preview.v1', version: '1.13.0' };

export const PREVIEW_LOGS_STREAM = 'PREVIEW_LOGS';
export const PREVIEW_LOGS_SUBJECTS = 'preview.v1.logs.>';

/** Deprecated since 1.8.0 (sunset 2027-12-31): use policyPreviewLogSubject. */
export const previewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
  experiment: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}.${experiment}`;

/** Deprecated since 1.10.0 (sunset 2027-12-31) for the compact log, a quarter of the bytes. */
export const policyPreviewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}`;

/** Developer defaults; the Kubernetes deployment keeps 50 GiB. */
export const PREVIEW_LOGS_STREAM_LIMITS = {
  maxAgeMs: 7 * 24 * 3600 * 1000,
  maxBytes: 1024 ** 3,
  duplicateWindowMs: 2 * 60 * 1000,
} as const;

export const PREVIEW_SUBJECTS = {
  /** Deprecated since 1.1.0: use previewFlows. */
  previewLogs: 'preview.v1.previewLogs',
  previewReport: 'preview.v1.previewReport',
  previewFlows: 'preview.v1.previewFlows',
  backtest: 'preview.v1.backtest',
  /** A backtest's operation. */
  getOperation: 'preview.v1.getOperation',
  deadLetters: 'preview.v1.deadLetters',
} as const;

export interface GetPreviewReportRequest {
  name: string;
  /** Most configurations on this page (since 1.11.0); a page also stops before 768 KiB. */
  pageSize?: number;
  /** Since 1.11.0. */
  pageToken?: string;
}

export interface RuleCount {
  rulePriority: number | null;
  implied: boolean;
  action: 'allow' | 'deny';
  count: number;
}

export interface ChangedSource {
  srcIp: string;
  /** Events whose verdict changed. */
  count: number;
}

export interface ChangedDestinationPort {
  protocol: string;
  destPort: number;
  count: number;
}

/** Changed traffic of one address block (since 1.12.0), counted exactly over the kept flows. */
export interface ChangedPrefix {
  /** CIDR: "203.0.113.0/24", "2001:db8::/48". */
  prefix: string;
  /** 24 or 16 (IPv4), 64 or 48 (IPv6). */
  prefixLength: number;
  /** Events whose verdict changed. */
  count: number;
  /** Distinct changed flows. */
  flows: number;
  /** Distinct addresses the changed events came from (sources) or went to (destinations). */
  addresses: number;
}

/** Since 1.12.0: "tcp/22 from 0.0.0.0/0 is now denied: 592 events from 61 sources". */
export interface ChangedRegionTraffic {
  /** The diff's sentence ("tcp/22 from 0.0.0.0/0 is now denied"). */
  summary: string;
  /** The experiment's verdict in the region. */
  action: 'allow' | 'deny';
  /** Changed events of the kept flows. */
  events: number;
  flows: number;
  /** Distinct source addresses. */
  sources: number;
}

/** How often one rule of the live policy decided traffic (since 1.12.0). */
export interface LiveRuleHits {
  rulePriority: number;
  action: 'allow' | 'deny';
  /** 0: an unused rule. */
  hits: number;
  /** A disabled rule decides nothing and is not listed as unused. */
  disabled?: boolean;
}

/** Since 1.12.0, with "unused rules" as GCP Firewall Insights has them. */
export interface LiveRuleUsage {
  livePolicyEtag: string;
  /** By priority. */
  rules: LiveRuleHits[];
  /** Events no rule of the policy matched. */
  impliedHits: number;
  /** Enabled rules that decided no event: candidates for removal. */
  unusedRules: number[];
}

/** A rule-transition matrix cell (since 1.2.0); `liveRules`, `experimentRules` are its margins. */
export interface RuleTransition {
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
}

/** [startTime, startTime + width), since 1.2.0: minutes for the last 6 hours, hours before. */
export interface PreviewTimeBucket {
  startTime: string;
  width: 'MINUTE' | 'HOUR';
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
}

export const PREVIEW_MINUTE_BUCKETS_HOURS = 6;
export const PREVIEW_REPORT_TRANSITIONS = 500;

/** Exact totals for one configuration. */
export interface PreviewConfigurationReport {
  experimentEtag: string;
  livePolicyEtag: string;
  /** evaluated = unchangedAllow + unchangedDeny + allowToDeny + denyToAllow. */
  evaluated: number;
  /** changed = allowToDeny + denyToAllow. */
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
  unchangedAllow: number;
  unchangedDeny: number;
  /** Most frequent first, implied rules included. */
  liveRules: RuleCount[];
  /** Most frequent first. */
  experimentRules: RuleCount[];
  /** The 20 with the most changed verdicts, over the kept flows. */
  topChangedSources: ChangedSource[];
  /** The 20 with the most changed verdicts, over the kept flows; portless events are not ranked. */
  topChangedDestinationPorts: ChangedDestinationPort[];
  /** Since 1.12.0: the 20 largest blocks of each prefix length, over the kept flows. */
  topChangedSourcePrefixes?: ChangedPrefix[];
  /** Since 1.12.0. */
  topChangedDestinationPrefixes?: ChangedPrefix[];
  /** Distinct changed flows kept for previewFlows. */
  flows?: number;
  /** Since 1.13.0: in no kept flow (the evaluator's flow bound), yet counted in the totals. */
  changedOutsideFlows?: number;
  /** Most frequent first (since 1.2.0); counts from before 1.2.0 may sum below `evaluated`. */
  ruleTransitions?: RuleTransition[];
  /** Past the 500 most frequent. */
  ruleTransitionsOmitted?: number;
  /** Oldest first (since 1.2.0). */
  timeBuckets?: PreviewTimeBucket[];
  /** Since 1.3.0. */
  completeness?: PreviewCompleteness;
  /** Per other ACTIVE experiment, the events it decides differently, most first (since 1.4.0). */
  disagreements?: PreviewDisagreement[];
  /** Past the 20 that disagree most (since 1.11.0). */
  disagreementsOmitted?: number;
  /** Since 1.5.0; only for the versions in force now (older versions' rules are not held). */
  coverage?: PreviewCoverage;
  /** Since 1.12.0; only for the versions in force now, like `coverage`. */
  liveRuleUsage?: LiveRuleUsage;
  /** RFC 3339. */
  firstEventTime: string;
  lastEventTime: string;
}

/** Since 1.3.0: `complete` when nothing was lost and the evaluator has nothing left to read. */
export interface PreviewCompleteness {
  complete: boolean;
  summary: string;
  /** While this configuration was ACTIVE, by reason, most first. */
  deadLettered: PreviewDeadLetterCount[];
  deadLetteredMessages: number;
  /** Delivered more than once, counted once. */
  redeliveredEvents: number;
  /** Removed by TRAFFIC's limits before being read, for every policy (a message's is unknown). */
  trafficDroppedMessages: number;
  /** Removed in that time, perhaps read first: loss unknown. */
  trafficDropUndetermined: number;
  /** Absent when it could not be read (then `complete` is false). */
  lag?: PreviewEvaluatorLag;
}

/** What the previewed traffic did not exercise (since 1.5.0). */
export interface PreviewCoverage {
  /** false when the analysis hit its work bound: nothing below may be inferred. */
  complete: boolean;
  /** Listed regions where live and experiment decide differently. */
  differingRegions: number;
  /** Past the analysis's listing bound, not examined. */
  regionsOmitted: number;
  /** What the change does that no traffic tested. */
  untouchedRegions: DifferingRegion[];
  /** false when changes outside the kept flows, or unlisted regions, may touch an untouched one. */
  exact: boolean;
  /** Enabled experiment rules that decided no event. */
  unmatchedExperimentRules: number[];
  /** They can never decide. */
  shadowedRules: number[];
  /** Since 1.12.0, over the kept flows; flows carry no target tags, so those are not applied. */
  changedByRegion?: ChangedRegionTraffic[];
}

export interface PreviewDeadLetterCount {
  /** `bad_json`, `invalid_event`, `bad_address`, `contract_mismatch`, `unevaluable`. */
  reason: string;
  messages: number;
}

/** TRAFFIC messages, every policy's, the evaluator has not settled. */
export interface PreviewEvaluatorLag {
  /** Undelivered, or delivered and not acknowledged. */
  pendingMessages: number;
  /** When the oldest was published (RFC 3339). */
  oldestPendingTime?: string;
}

export interface PreviewReport {
  /** The experiment's resource name. */
  name: string;
  /** Newest first; paged since 1.11.0, as many live versions outgrow one reply. */
  configurations: PreviewConfigurationReport[];
  /** Since 1.11.0; absent on the last page. */
  nextPageToken?: string;
  /** Since 1.6.0; first page only, absent when the evaluator does not hold the experiment. */
  readiness?: PreviewReadiness;
  /**
   * `{what matters}.{counts}` (since 1.6.0; first page only since 1.11.0): a commit given one is
   * refused (ABORTED) once the judged configuration or a gate's verdict changed.
   */
  reportEtag?: string;
  /**
   * When the evaluator applied the current preview (since 1.9.0): earlier events are not its.
   * @format date-time
   */
  previewAppliedTime?: string;
}

const REPORT_ETAG = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{16})$/;

export function reportEtagMatters(etag: unknown): string | undefined {
  return typeof etag === 'string' ? REPORT_ETAG.exec(etag)?.[1] : undefined;
}

export const PREVIEW_REPORT_TOP = 20;
export const PREVIEW_REPORT_DEFAULT_PAGE_SIZE = 10;
export const PREVIEW_REPORT_MAX_PAGE_SIZE = 50;
/** Keeps the reply within the bus's 1 MiB message limit whatever the page size. */
export const PREVIEW_REPORT_PAGE_BYTES = 768 * 1024;
export const PREVIEW_FLOW_SAMPLES = 5;
export const PREVIEW_LOGS_DEFAULT_PAGE_SIZE = 50;
export const PREVIEW_LOGS_MAX_PAGE_SIZE = 1000;

export * from './dead-letters';
export * from './logs';
export * from './compact-log';
export * from './flows';
export * from './disagreements';
export * from './readiness';
