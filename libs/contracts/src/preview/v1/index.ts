import type { PREVIEW_LOG_PREFIX } from '../../experiment/v1/resources';
import type { ContractPackage } from '../../packages';
import type { TrafficProtocol } from '../../traffic/v1';

/**
 * `preview.v1`: what previewing a firewall policy experiment did to production traffic.
 *
 * For every traffic event (traffic.v1) of a live policy, the evaluator evaluates the live
 * policy and every experiment of it whose `previewMetadata.state` is ACTIVE (a no-op experiment
 * previews deleting the live policy), and emits one log record per ACTIVE experiment:
 *
 * - on JetStream, stream `PREVIEW_LOGS`, subject
 *   `preview.v1.logs.{project}.{location}.{firewallPolicy}.{experiment}`: each message is a
 *   `PreviewLogBatch` (several records of one experiment configuration), with `Nats-Msg-Id`
 *   set, so a message republished after a crash is stored once within the duplicate window;
 *   every record also carries its deterministic `id`, the key to deduplicate on downstream;
 * - in the evaluator's store, read back with `previewLogs` (exactly once per record id) and
 *   summed up, exactly, by `previewReport`.
 *
 * A configuration is one (experiment etag, live policy etag) pair: the versions of the two
 * policies that produced a result. Reports and log pages keep them apart, newest first.
 */
export const PREVIEW_V1: ContractPackage = { name: 'preview.v1', version: '1.0.0' };

export const PREVIEW_LOGS_STREAM = 'PREVIEW_LOGS';
export const PREVIEW_LOGS_SUBJECTS = 'preview.v1.logs.>';

export const previewLogSubject = (project: string, location: string, firewallPolicy: string, experiment: string) =>
  `preview.v1.logs.${project}.${location}.${firewallPolicy}.${experiment}`;

/**
 * Default limits of the PREVIEW_LOGS stream (the evaluator's store keeps its own copy): a
 * week, 1 GiB on a developer machine (PREVIEW_LOGS_MAX_AGE_MS and PREVIEW_LOGS_MAX_BYTES of
 * the evaluator; the Kubernetes deployment keeps 7 days and 50 GiB).
 */
export const PREVIEW_LOGS_STREAM_LIMITS = {
  maxAgeMs: 7 * 24 * 3600 * 1000,
  maxBytes: 1024 ** 3,
  duplicateWindowMs: 2 * 60 * 1000,
} as const;

/** Request/reply subjects served by the evaluator (queue group `evaluator`). */
export const PREVIEW_SUBJECTS = {
  previewLogs: 'preview.v1.previewLogs',
  previewReport: 'preview.v1.previewReport',
} as const;

/** What a policy decided for one connection. */
export interface PreviewVerdict {
  action: 'allow' | 'deny';
  /** The deciding rule's priority; null when no rule matched (`implied`). */
  rulePriority: number | null;
  /** No rule matched: the implied rule decided (INGRESS deny, EGRESS allow). */
  implied: boolean;
}

/** The connection that was evaluated: the traffic event minus its id and time. */
export interface PreviewConnection {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: TrafficProtocol;
  srcPort?: number;
  destPort?: number;
  targetTags?: string[];
}

export interface PreviewLogRecord {
  /** Always `FirewallPolicyPreviewLog` (experiment.v1's PREVIEW_LOG_PREFIX): records grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** Deterministic: derived from trafficEventId, experiment and experimentEtag only. */
  id: string;
  /** The experiment's resource name. */
  experiment: string;
  /** The live policy's resource name. */
  firewallPolicy: string;
  experimentEtag: string;
  livePolicyEtag: string;
  trafficEventId: string;
  /** The traffic event's `time`, as the producer wrote it. */
  eventTime: string;
  connection: PreviewConnection;
  liveResult: PreviewVerdict;
  experimentResult: PreviewVerdict;
  /** The two actions differ. */
  changed: boolean;
}

/** The payload of one PREVIEW_LOGS message. */
export interface PreviewLogBatch {
  records: PreviewLogRecord[];
}

export interface ListPreviewLogsRequest {
  /** `projects/{p}/locations/{l}/firewallPolicies/{f}/experiments/{e}` */
  name: string;
  /** Only records whose verdict changed. */
  changedOnly?: boolean;
  /** Default 50, at most 1000. */
  pageSize?: number;
  /** `nextPageToken` of the previous page of the same query. */
  pageToken?: string;
}

/**
 * Newest configuration first, and within a configuration the most recently stored record
 * first; no record appears on two pages. Records stored after the first page was read do not
 * appear in later pages of that listing (start again to see them).
 */
export interface ListPreviewLogsResponse {
  previewLogs: PreviewLogRecord[];
  nextPageToken?: string;
}

export interface GetPreviewReportRequest {
  name: string;
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
  /** The 20 sources with the most changed verdicts (ties by address). */
  topChangedSources: ChangedSource[];
  /** The 20 destination ports with the most changed verdicts (events without a port are not ranked). */
  topChangedDestinationPorts: ChangedDestinationPort[];
  /** Earliest and latest traffic event time seen (RFC 3339). */
  firstEventTime: string;
  lastEventTime: string;
}

export interface PreviewReport {
  /** The experiment's resource name. */
  name: string;
  /** Newest configuration first; empty before the first evaluated event. */
  configurations: PreviewConfigurationReport[];
}

export const PREVIEW_REPORT_TOP = 20;
export const PREVIEW_LOGS_DEFAULT_PAGE_SIZE = 50;
export const PREVIEW_LOGS_MAX_PAGE_SIZE = 1000;
