import type { PREVIEW_LOG_PREFIX } from '../../experiment/v1/resources';
import type { TrafficProtocol } from '../../traffic/v1';

export interface PreviewVerdict {
  action: 'allow' | 'deny';
  rulePriority: number | null;
  /** No rule matched (INGRESS deny, EGRESS allow). */
  implied: boolean;
}

/** The traffic event minus its id and time. */
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
  /** So records grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** Derived from trafficEventId, experiment and experimentEtag only. */
  id: string;
  /** The experiment's resource name. */
  experiment: string;
  /** The live policy's resource name. */
  firewallPolicy: string;
  experimentEtag: string;
  livePolicyEtag: string;
  trafficEventId: string;
  /** As the producer wrote it. */
  eventTime: string;
  connection: PreviewConnection;
  liveResult: PreviewVerdict;
  experimentResult: PreviewVerdict;
  /** The actions differ. */
  changed: boolean;
}

/** On the deprecated per-experiment subject. */
export interface PreviewLogBatch {
  records: PreviewLogRecord[];
}

/** Since 1.8.0: the configurations once, then each event with every ACTIVE experiment's verdict. */
export interface PolicyPreviewLogBatch {
  /** So messages grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** The live policy's resource name. */
  firewallPolicy: string;
  livePolicyEtag: string;
  /** `experimentResults` follow this order. */
  experiments: PreviewLogExperiment[];
  events: PolicyPreviewLogRecord[];
}

export interface PreviewLogExperiment {
  /** The experiment's resource name. */
  experiment: string;
  experimentEtag: string;
}

export interface PolicyPreviewLogRecord {
  /** Derived from trafficEventId and the message's policy and experiment versions. */
  id: string;
  trafficEventId: string;
  /** As the producer wrote it. */
  eventTime: string;
  connection: PreviewConnection;
  liveResult: PreviewVerdict;
  /** In the order of `experiments`. */
  experimentResults: PreviewExperimentResult[];
}

export interface PreviewExperimentResult extends PreviewVerdict {
  /** The action differs from the live policy's. */
  changed: boolean;
}

/** Deprecated since 1.1.0 for `ListPreviewFlowsRequest`: lists the changed flows' samples. */
export interface ListPreviewLogsRequest {
  /** `projects/{p}/locations/{l}/firewallPolicies/{f}/experiments/{e}` */
  name: string;
  /**
   * Ignored: every listed record has changed since 1.1.0.
   * @deprecated since 1.1.0: use `ListPreviewFlowsRequest.filter`.
   */
  changedOnly?: boolean;
  /** Default 50, at most 1000. */
  pageSize?: number;
  pageToken?: string;
}

/** Newest configuration first, then the flow seen last first, its samples oldest first. */
export interface ListPreviewLogsResponse {
  previewLogs: PreviewLogRecord[];
  nextPageToken?: string;
}
