import type { PreviewVerdict } from './logs';

/** Changed decisions by connection without its source port, and by the two deciding rules. */
export interface PreviewFlow {
  experimentEtag: string;
  livePolicyEtag: string;
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  /** A name (`tcp`), or a number for protocols without one. */
  protocol: string;
  destPort?: number;
  transition: PreviewTransition;
  liveResult: PreviewVerdict;
  experimentResult: PreviewVerdict;
  /** Exact. */
  count: number;
  /** RFC 3339. */
  firstEventTime: string;
  lastEventTime: string;
  /** The first 5 events, to look up in your own flow logs. */
  samples: PreviewFlowSample[];
}

export type PreviewTransition = 'ALLOW_TO_DENY' | 'DENY_TO_ALLOW';

export interface PreviewFlowSample {
  trafficEventId: string;
  /** As the producer wrote it. */
  eventTime: string;
  srcPort?: number;
}

/**
 * AIP-132, newest configuration first, then the flow seen last first. `filter` (AIP-160): terms
 * joined by `AND`, e.g. `transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort >= 22`, on
 * `transition`, `liveRule`, `experimentRule` (a priority or `implied`), `srcIp`, `destIp`, `ip`
 * (either side; CIDR allowed), `destPort`, `protocol`, `direction`, `experimentEtag`,
 * `livePolicyEtag`.
 */
export interface ListPreviewFlowsRequest {
  /** The experiment. */
  parent: string;
  /** @maxLength 2000 */
  filter?: string;
  /** Default 50, at most 1000. */
  pageSize?: number;
  pageToken?: string;
}

export interface ListPreviewFlowsResponse {
  previewFlows: PreviewFlow[];
  nextPageToken?: string;
}
