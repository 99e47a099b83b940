import type { PREVIEW_LOG_PREFIX } from '../../experiment/v1/resources';
import type { TrafficProtocol } from '../../traffic/v1';

/** preview.v1's per-event log records (PREVIEW_LOGS) and their listing (previewLogs). */

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
  /** Since 1.13.0. */
  srcSecureTags?: string[];
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

/** The payload of one PREVIEW_LOGS message on a deprecated per-experiment subject. */
export interface PreviewLogBatch {
  records: PreviewLogRecord[];
}

/**
 * The payload of one message of a policy's preview log (since 1.8.0): the configurations once,
 * then one record per event carrying every ACTIVE experiment's verdict.
 */
export interface PolicyPreviewLogBatch {
  /** Always `FirewallPolicyPreviewLog` (experiment.v1's PREVIEW_LOG_PREFIX): messages grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** The live policy's resource name. */
  firewallPolicy: string;
  livePolicyEtag: string;
  /** The experiments ACTIVE when the events were evaluated; `experimentResults` follow this order. */
  experiments: PreviewLogExperiment[];
  events: PolicyPreviewLogRecord[];
}

/** An experiment version a policy's log record has a verdict of. */
export interface PreviewLogExperiment {
  /** The experiment's resource name. */
  experiment: string;
  experimentEtag: string;
}

/** One traffic event in a policy's preview log. */
export interface PolicyPreviewLogRecord {
  /**
   * Deterministic: derived from trafficEventId, the live policy version and the experiment
   * versions of the message (evaluating the same event in the same state gives the same id).
   */
  id: string;
  trafficEventId: string;
  /** The traffic event's `time`, as the producer wrote it. */
  eventTime: string;
  connection: PreviewConnection;
  liveResult: PreviewVerdict;
  /** One per `experiments` entry, in that order. */
  experimentResults: PreviewExperimentResult[];
}

/** An experiment's verdict in a policy's log record, and whether it differs from the live one. */
export interface PreviewExperimentResult extends PreviewVerdict {
  /** The experiment's action differs from the live policy's. */
  changed: boolean;
}

/**
 * Deprecated since 1.1.0 (use `ListPreviewFlowsRequest`): the evaluator no longer stores a
 * record per event. previewLogs lists the sample records of the changed flows (see
 * `PreviewFlow.samples`), rebuilt as they were logged; unchanged decisions are counted in the
 * report and logged on PREVIEW_LOGS, not listed here.
 */
export interface ListPreviewLogsRequest {
  /** `projects/{p}/locations/{l}/firewallPolicies/{f}/experiments/{e}` */
  name: string;
  /**
   * Only records whose verdict changed. Every listed record has changed since 1.1.0, whatever
   * this says.
   * @deprecated since 1.1.0: use `ListPreviewFlowsRequest.filter`.
   */
  changedOnly?: boolean;
  /** Default 50, at most 1000. */
  pageSize?: number;
  /** `nextPageToken` of the previous page of the same query. */
  pageToken?: string;
}

/**
 * Newest configuration first, and within a configuration the flow seen last first, its samples
 * oldest first; no record appears on two pages of one listing.
 */
export interface ListPreviewLogsResponse {
  previewLogs: PreviewLogRecord[];
  nextPageToken?: string;
}
