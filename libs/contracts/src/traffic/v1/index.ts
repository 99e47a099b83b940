import type { ContractPackage } from '../../packages';

/** `traffic.v1`: one event per connection (docs/traffic.md). */
export const TRAFFIC_V1: ContractPackage = { name: 'traffic.v1', version: '1.1.0' };

export const TRAFFIC_STREAM = 'TRAFFIC';
export const TRAFFIC_SUBJECTS = 'traffic.v1.>';
/** Every major, so one durable consumer reads them all and decodes by the subject's major. */
export const TRAFFIC_STREAM_SUBJECTS = 'traffic.>';

export const trafficSubject = (project: string, location: string, firewallPolicy: string) =>
  `traffic.v1.${project}.${location}.${firewallPolicy}`;

/** A developer machine's bytes: JetStream reserves them on disk up front. */
export const TRAFFIC_STREAM_LIMITS = {
  /** A day: the evaluator can be down for that long without losing traffic. */
  maxAgeMs: 24 * 3600 * 1000,
  /** About 4 million events of 250 bytes. */
  maxBytes: 1024 ** 3,
  duplicateWindowMs: 2 * 60 * 1000,
} as const;

/** Any other protocol is given by its number, 0-255. */
export const TRAFFIC_PROTOCOLS = ['tcp', 'udp', 'icmp', 'icmpv6', 'sctp', 'esp', 'ah'] as const;
export type TrafficProtocol = (typeof TRAFFIC_PROTOCOLS)[number] | number;
/** Not exported as a type: the generated schemas keep TrafficProtocol as one union. */
type TrafficProtocolName = (typeof TRAFFIC_PROTOCOLS)[number];

/** IANA numbers: the one table of the services, the importer and the analysis. */
export const PROTOCOL_NUMBERS: Readonly<Record<TrafficProtocolName, number>> = {
  icmp: 1,
  tcp: 6,
  udp: 17,
  esp: 50,
  ah: 51,
  icmpv6: 58,
  sctp: 132,
};
const PROTOCOL_NAMES = new Map<number, TrafficProtocolName>(
  TRAFFIC_PROTOCOLS.map((name) => [PROTOCOL_NUMBERS[name], name]),
);
/** So `6` and `tcp` are one protocol. */
export const protocolNameOf = (protocol: number): TrafficProtocolName | undefined =>
  PROTOCOL_NAMES.get(protocol);

export const TRAFFIC_EVENT_ID_MAX_LENGTH = 128;

/** Unknown fields are ignored. */
export interface TrafficEvent {
  /** Unique per event, at most 128 characters. */
  id: string;
  /** RFC 3339. */
  time: string;
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: TrafficProtocol;
  srcPort?: number;
  destPort?: number;
  /** Of the instance reached (INGRESS) or left (EGRESS). */
  targetTags?: string[];
  /** Since 1.1.0: `tagValues/123`, or Hubble labels (`k8s:app=web`), for `match.srcSecureTags`. */
  srcSecureTags?: string[];
}

const RFC_3339 =
  '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';
const PORT = { type: 'integer', minimum: 0, maximum: 65535 } as const;

/** Hand-written for the hot path; a pattern cannot say "IPv6", so consumers check addresses. */
export const TRAFFIC_EVENT_SCHEMA = {
  $id: 'https://policy-rollout.dev/schemas/traffic.v1.TrafficEvent.json',
  type: 'object',
  required: ['id', 'time', 'direction', 'srcIp', 'destIp', 'protocol'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: TRAFFIC_EVENT_ID_MAX_LENGTH },
    time: { type: 'string', maxLength: 40, pattern: RFC_3339 },
    direction: { enum: ['INGRESS', 'EGRESS'] },
    srcIp: { type: 'string', minLength: 2, maxLength: 45 },
    destIp: { type: 'string', minLength: 2, maxLength: 45 },
    protocol: {
      oneOf: [{ enum: [...TRAFFIC_PROTOCOLS] }, { type: 'integer', minimum: 0, maximum: 255 }],
    },
    srcPort: PORT,
    destPort: PORT,
    targetTags: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', minLength: 1, maxLength: 63 },
    },
    srcSecureTags: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', minLength: 1, maxLength: 256 },
    },
  },
} as const;

export * from './message-id';
