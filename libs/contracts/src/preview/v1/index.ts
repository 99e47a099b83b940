import type { DifferingRegion } from '../../experiment/v1/resources';
import type { ContractPackage } from '../../packages';
import type { PreviewDisagreement } from './disagreements';
import type { PreviewVerdict } from './logs';
import type { PreviewReadiness } from './readiness';

/**
 * `preview.v1`: what previewing a firewall policy experiment did to production traffic. Every
 * traffic event of a live policy is evaluated against the policy and each ACTIVE experiment of
 * it (a no-op experiment previews deleting the policy) and logged on `PREVIEW_LOGS`: one record
 * per event on the policy's log (compact since 1.10.0, `….{firewallPolicy}._policy.compact`;
 * as PolicyPreviewLogBatch, deprecated, on `….{firewallPolicy}`), and (deprecated) one per event
 * and experiment (`….{firewallPolicy}.{experiment}`); a consumer of `preview.v1.logs.>` tells
 * them apart by the subject's length (5, 3 and 4 tokens after `logs`). Each record's deterministic `id`
 * is the key to deduplicate on downstream. What the evaluator stores for `previewReport` and
 * `previewFlows` grows with the flows and rules, never with the traffic.
 *
 * A configuration is one (experiment etag, live policy etag) pair: the versions of the two
 * policies that produced a result. Reports and log pages keep them apart, newest first.
 */
export const PREVIEW_V1: ContractPackage = { name: 'preview.v1', version: '1.13.0' };

export const PREVIEW_LOGS_STREAM = 'PREVIEW_LOGS';
export const PREVIEW_LOGS_SUBJECTS = 'preview.v1.logs.>';

/** Deprecated since 1.8.0 (sunset 2027-12-31): one experiment's records; use policyPreviewLogSubject. */
export const previewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
  experiment: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}.${experiment}`;

/**
 * Since 1.8.0: a live policy's preview log, one record per event for all its ACTIVE experiments.
 * Deprecated since 1.10.0 (sunset 2027-12-31): the same log in about a quarter of the bytes is on
 * compactPolicyPreviewLogSubject; the evaluator publishes this one only with PREVIEW_LOGS_POLICY_JSON.
 */
export const policyPreviewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}`;

/**
 * Default limits of the PREVIEW_LOGS stream (the evaluator's store keeps its own copy): a
 * week, 1 GiB on a developer machine (PREVIEW_LOGS_MAX_AGE_MS and PREVIEW_LOGS_MAX_BYTES of
 * the bus provisioning step; the Kubernetes deployment keeps 7 days and 50 GiB).
 */
export const PREVIEW_LOGS_STREAM_LIMITS = {
  maxAgeMs: 7 * 24 * 3600 * 1000,
  maxBytes: 1024 ** 3,
  duplicateWindowMs: 2 * 60 * 1000,
} as const;

/** Request/reply subjects served by the evaluator (queue group `evaluator`). */
export const PREVIEW_SUBJECTS = {
  /** Deprecated since 1.1.0: use previewFlows. */
  previewLogs: 'preview.v1.previewLogs',
  previewReport: 'preview.v1.previewReport',
  previewFlows: 'preview.v1.previewFlows',
  /** Since 1.7.0: start a backtest (see backtest.ts). */
  backtest: 'preview.v1.backtest',
  /** Since 1.7.0: a backtest's operation. */
  getOperation: 'preview.v1.getOperation',
  /** Since 1.9.0: the traffic messages dead-lettered for a project (see dead-letters.ts). */
  deadLetters: 'preview.v1.deadLetters',
} as const;

export interface GetPreviewReportRequest {
  name: string;
  /**
   * Most configurations on this page (since 1.11.0): absent or 0 is
   * PREVIEW_REPORT_PAGE_SIZES.default, more than the maximum is the maximum. A page also stops
   * before PREVIEW_REPORT_PAGE_BYTES of configurations (it always holds one).
   */
  pageSize?: number;
  /** The nextPageToken of the previous page (since 1.11.0); absent for the first page. */
  pageToken?: string;
}

export interface RuleCount {
  rulePriority: number | null;
  implied: boolean;
  action: 'allow' | 'deny';
  /** Events this rule decided. */
  count: number;
}

export interface ChangedSource {
  srcIp: string;
  /** Events from this source whose verdict changed. */
  count: number;
}

export interface ChangedDestinationPort {
  protocol: string;
  destPort: number;
  count: number;
}

/**
 * Changed traffic of one address block (since 1.12.0): a /24 or /16 of IPv4, a /64 or /48 of
 * IPv6, counted exactly over the kept flows.
 */
export interface ChangedPrefix {
  /** The block, in CIDR notation ("203.0.113.0/24", "2001:db8::/48"). */
  prefix: string;
  /** Its prefix length: 24 or 16 (IPv4), 64 or 48 (IPv6). */
  prefixLength: number;
  /** Events in the block whose verdict changed. */
  count: number;
  /** Distinct changed flows in the block. */
  flows: number;
  /** Distinct addresses of the block the changed events came from (sources) or went to (destinations). */
  addresses: number;
}

/**
 * A region of the static analysis where live and experiment decide differently, in the words of
 * the experiment's diff, and the changed traffic of this configuration that lies in it (since
 * 1.12.0): "tcp/22 from 0.0.0.0/0 is now denied: 592 events from 61 sources".
 */
export interface ChangedRegionTraffic {
  /** The diff's sentence for the region ("tcp/22 from 0.0.0.0/0 is now denied"). */
  summary: string;
  /** The experiment's verdict in the region: `deny` for now denied, `allow` for now allowed. */
  action: 'allow' | 'deny';
  /** Changed events of the kept flows in the region. */
  events: number;
  /** Kept changed flows in the region. */
  flows: number;
  /** Distinct source addresses of those flows. */
  sources: number;
}

/** How often one rule of the live policy decided traffic (since 1.12.0). */
export interface LiveRuleHits {
  rulePriority: number;
  action: 'allow' | 'deny';
  /** Events this rule decided (0: an unused rule). */
  hits: number;
  /** The rule is disabled: it cannot decide anything, and is not listed as unused. */
  disabled?: boolean;
}

/**
 * The live policy's own rule usage (since 1.12.0): every rule of the live version in force, with
 * the events it decided in this configuration, and the enabled ones that decided none ("unused
 * rules", as GCP Firewall Insights calls them).
 */
export interface LiveRuleUsage {
  /** The live policy version the rules are of (this configuration's). */
  livePolicyEtag: string;
  /** Every rule of that version, by priority. */
  rules: LiveRuleHits[];
  /** Events the implied rules decided (no rule of the policy matched). */
  impliedHits: number;
  /** Priorities of the enabled rules that decided no event: candidates for removal. */
  unusedRules: number[];
}

/**
 * Events decided by one live policy rule and one experiment rule (since 1.2.0): a cell of the
 * rule-transition matrix. Its margins are `liveRules` and `experimentRules`; summed by the two
 * actions, the verdict matrix (`unchangedAllow`, `allowToDeny`, `denyToAllow`, `unchangedDeny`).
 */
export interface RuleTransition {
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
}

/**
 * Counts of one configuration's events whose time falls in [startTime, startTime + width)
 * (since 1.2.0). Minute buckets cover the PREVIEW_MINUTE_BUCKETS_HOURS before the
 * configuration's last event; before that, hour buckets, back to the retention period.
 */
export interface PreviewTimeBucket {
  startTime: string;
  width: 'MINUTE' | 'HOUR';
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
}

/** How far back, before a configuration's last event, its time buckets are a minute wide. */
export const PREVIEW_MINUTE_BUCKETS_HOURS = 6;
/** Rule transitions a report lists, most frequent first (`ruleTransitionsOmitted` counts the rest). */
export const PREVIEW_REPORT_TRANSITIONS = 500;

/** Exact totals for one (experiment etag, live policy etag) configuration. */
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
  /** Deciding rules of the live policy, most frequent first (implied rules included). */
  liveRules: RuleCount[];
  /** Deciding rules of the experiment's policy, most frequent first. */
  experimentRules: RuleCount[];
  /** The 20 sources with the most changed verdicts (ties by address), over the flows kept (see `flows`). */
  topChangedSources: ChangedSource[];
  /** The 20 destination ports with the most changed verdicts (events without a port are not ranked), over the flows kept. */
  topChangedDestinationPorts: ChangedDestinationPort[];
  /**
   * The source blocks with the most changed events (since 1.12.0): the 20 largest of each of /24
   * and /16 (IPv4) and /64 and /48 (IPv6), by prefix length then most first, over the flows kept.
   */
  topChangedSourcePrefixes?: ChangedPrefix[];
  /** The same for destination blocks (since 1.12.0). */
  topChangedDestinationPrefixes?: ChangedPrefix[];
  /** Distinct changed flows kept for previewFlows. */
  flows?: number;
  /**
   * Changed events whose flow is not kept, because the configuration already had the most flows
   * the evaluator keeps (EVALUATOR_MAX_FLOWS): counted in the totals above, in no flow.
   */
  changedOutsideFlows?: number;
  /**
   * Events by (live deciding rule → experiment deciding rule), implied rules included, most
   * frequent first (since 1.2.0). A configuration counted before 1.2.0 has cells only for the
   * events evaluated since, so their sum can be below `evaluated`.
   */
  ruleTransitions?: RuleTransition[];
  /** Cells left out of `ruleTransitions` (past the PREVIEW_REPORT_TRANSITIONS most frequent). */
  ruleTransitionsOmitted?: number;
  /** Evaluated and changed events by event time, oldest first (since 1.2.0; see PreviewTimeBucket). */
  timeBuckets?: PreviewTimeBucket[];
  /** Whether the counts above are all of the policy's traffic, and what they miss (since 1.3.0). */
  completeness?: PreviewCompleteness;
  /**
   * With two or more ACTIVE experiments on the policy: per other experiment (and its etag), the
   * events of this configuration it decides differently, most first (since 1.4.0).
   */
  disagreements?: PreviewDisagreement[];
  /**
   * Experiments left out of `disagreements` (since 1.11.0), past the PREVIEW_REPORT_TOP that
   * disagree on most events.
   */
  disagreementsOmitted?: number;
  /**
   * The experiment's static analysis against this configuration's traffic (since 1.5.0): only
   * for the configuration of the experiment and live policy versions in force now (the rules of
   * older versions are not held).
   */
  coverage?: PreviewCoverage;
  /**
   * The live policy's own rule usage in this configuration (since 1.12.0): only for the
   * configuration of the versions in force now, like `coverage` (the evaluator holds the rules of
   * the live version in force only).
   */
  liveRuleUsage?: LiveRuleUsage;
  /** Earliest and latest traffic event time seen (RFC 3339). */
  firstEventTime: string;
  lastEventTime: string;
}

/**
 * What a configuration's counts may miss (since 1.3.0). `complete` holds only when nothing was
 * dead-lettered, TRAFFIC is known to have dropped nothing since the configuration's first
 * evaluation, and the evaluator has nothing left to read; `summary` says it in a sentence.
 */
export interface PreviewCompleteness {
  complete: boolean;
  summary: string;
  /** Messages of the policy's traffic dead-lettered while this configuration was ACTIVE, by reason (most first). */
  deadLettered: PreviewDeadLetterCount[];
  /** Their sum. */
  deadLetteredMessages: number;
  /** Events counted from messages JetStream delivered more than once (counted once all the same). */
  redeliveredEvents: number;
  /**
   * Messages TRAFFIC removed (its age or size limits) before the evaluator read them, since this
   * configuration's first evaluation, for every policy (a removed message's policy is unknown).
   */
  trafficDroppedMessages: number;
  /** Messages TRAFFIC removed in that time that the evaluator may or may not have read first: loss unknown. */
  trafficDropUndetermined: number;
  /** The evaluator's backlog now; absent when it could not be read (then `complete` is false). */
  lag?: PreviewEvaluatorLag;
}

/** What the previewed traffic did not exercise (since 1.5.0). */
export interface PreviewCoverage {
  /** false when the analysis hit its work bound: nothing below may be inferred. */
  complete: boolean;
  /** Regions of the analysis where live and experiment decide differently (listed ones). */
  differingRegions: number;
  /** Regions past the analysis's listing bound, not examined here. */
  regionsOmitted: number;
  /** The differing regions no previewed connection touched: what the change does that no traffic tested. */
  untouchedRegions: DifferingRegion[];
  /** false when changed events outside the kept flows, or regions not listed, may touch a region listed as untouched. */
  exact: boolean;
  /** Priorities of the enabled experiment rules that decided no event of this configuration. */
  unmatchedExperimentRules: number[];
  /** Priorities of the experiment rules the analysis found shadowed (they can never decide). */
  shadowedRules: number[];
  /**
   * Each listed differing region with the changed traffic in it (since 1.12.0), in the analysis's
   * order (the diff's sentences). Counted over the kept flows: exact when `changedOutsideFlows`
   * is 0. Flows carry no target tags, so a region's target condition is not applied.
   */
  changedByRegion?: ChangedRegionTraffic[];
}

export interface PreviewDeadLetterCount {
  /** The dead-letter reason (`bad_json`, `invalid_event`, `bad_address`, `contract_mismatch`, `unevaluable`). */
  reason: string;
  messages: number;
}

/** TRAFFIC messages not yet settled by the evaluator (every policy's). */
export interface PreviewEvaluatorLag {
  /** Messages not yet delivered, and delivered but not yet acknowledged. */
  pendingMessages: number;
  /** When the oldest of them was published (RFC 3339); absent when none is pending. */
  oldestPendingTime?: string;
}

export interface PreviewReport {
  /** The experiment's resource name. */
  name: string;
  /**
   * Newest configuration first; empty before the first evaluated event. Since 1.11.0 a page of
   * them (see GetPreviewReportRequest.pageSize): an experiment updated or previewed across many
   * live versions has more than one reply may carry.
   */
  configurations: PreviewConfigurationReport[];
  /** Where the older configurations continue (since 1.11.0); absent on the last page. */
  nextPageToken?: string;
  /**
   * The experiment's readiness gates judged on its latest preview (since 1.6.0). Absent when the
   * evaluator does not hold the experiment (committed, deleted, or not yet known), and on pages
   * after the first (the configuration judged is always on the first: it is among the newest).
   */
  readiness?: PreviewReadiness;
  /**
   * `{what matters}.{counts}` (since 1.6.0): the first part changes when the judged configuration
   * or any gate's verdict changes, the second whenever a count of the report's first page
   * changes (since 1.11.0: only the first page carries it). A commit
   * given a reportEtag is refused (ABORTED) when the first part is no longer the current one.
   */
  reportEtag?: string;
  /**
   * When the evaluator first applied the experiment's current preview (its startPreview), RFC
   * 3339 (since 1.9.0): events published before it are not the preview's. Absent until then.
   * @format date-time
   */
  previewAppliedTime?: string;
}

const REPORT_ETAG = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{16})$/;

/** The "what matters" part of a reportEtag (`{what matters}.{counts}`), or undefined when the text is not one. */
export function reportEtagMatters(etag: unknown): string | undefined {
  return typeof etag === 'string' ? REPORT_ETAG.exec(etag)?.[1] : undefined;
}

export const PREVIEW_REPORT_TOP = 20;
/** previewReport's page sizes, in configurations (since 1.11.0). */
export const PREVIEW_REPORT_DEFAULT_PAGE_SIZE = 10;
export const PREVIEW_REPORT_MAX_PAGE_SIZE = 50;
/**
 * Most bytes of configurations (as JSON) on one page of previewReport (since 1.11.0): the reply
 * stays within the bus's 1 MiB message limit whatever the page size.
 */
export const PREVIEW_REPORT_PAGE_BYTES = 768 * 1024;
/** Sample events kept per flow. */
export const PREVIEW_FLOW_SAMPLES = 5;
export const PREVIEW_LOGS_DEFAULT_PAGE_SIZE = 50;
export const PREVIEW_LOGS_MAX_PAGE_SIZE = 1000;

export * from './dead-letters';
export * from './logs';
export * from './compact-log';
export * from './flows';
export * from './disagreements';
export * from './readiness';
