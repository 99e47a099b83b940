import type { PreviewVerdict } from './logs';

/**
 * Changed decisions of one configuration aggregated by flow: the connection without its source
 * port (direction, addresses, protocol, destination port) and the two deciding rules.
 */
export interface PreviewFlow {
  experimentEtag: string;
  livePolicyEtag: string;
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  /** The protocol's name (`tcp`, `udp`, …), or its number for protocols without one. */
  protocol: string;
  /** Absent for connections without ports. */
  destPort?: number;
  transition: PreviewTransition;
  liveResult: PreviewVerdict;
  experimentResult: PreviewVerdict;
  /** Events of this flow (all of them, exactly). */
  count: number;
  /** Earliest and latest event time of the flow (RFC 3339). */
  firstEventTime: string;
  lastEventTime: string;
  /** The first events of the flow (at most PREVIEW_FLOW_SAMPLES), to look up in your own flow logs. */
  samples: PreviewFlowSample[];
}

/** allow → deny (the change blocks the flow) or deny → allow (it opens it). */
export type PreviewTransition = 'ALLOW_TO_DENY' | 'DENY_TO_ALLOW';

export interface PreviewFlowSample {
  trafficEventId: string;
  /** The event's `time`, as the producer wrote it. */
  eventTime: string;
  srcPort?: number;
}

/**
 * AIP-132 list of the changed flows of an experiment, newest configuration first, then the flow
 * seen last first.
 *
 * `filter` (AIP-160, a conjunction): terms joined by `AND`, each `field = value`, `field != value`,
 * or for ports `destPort >= n` / `destPort <= n`. Fields: `transition` (`ALLOW_TO_DENY`,
 * `DENY_TO_ALLOW`), `liveRule` and `experimentRule` (a priority, or `implied`), `srcIp`,
 * `destIp` and `ip` (either side; an address or a CIDR range, which matches the addresses in it),
 * `destPort`, `protocol`, `direction`, `experimentEtag`, `livePolicyEtag`. Values may be quoted.
 * Example: `transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort = 22`.
 */
export interface ListPreviewFlowsRequest {
  /** The experiment: `projects/{p}/locations/{l}/firewallPolicies/{f}/experiments/{e}` */
  parent: string;
  /** @maxLength 2000 */
  filter?: string;
  /** Default 50, at most 1000. */
  pageSize?: number;
  /** `nextPageToken` of the previous page of the same query. */
  pageToken?: string;
}

export interface ListPreviewFlowsResponse {
  previewFlows: PreviewFlow[];
  nextPageToken?: string;
}
