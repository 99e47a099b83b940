import type { ContractPackage } from '../../packages';

/**
 * `traffic.v1`: production traffic, one event per connection, from producers (flow-log
 * exporters, proxies, agents) to the evaluator, on stream `TRAFFIC` (every traffic major) with
 * subject `traffic.v1.{project}.{location}.{firewallPolicy}`, the IDs of the live policy's name.
 * Producers set `Nats-Msg-Id` to `trafficMessageId`, so a retried publish is stored once and no
 * other project can make the event a duplicate. An event that cannot be evaluated is not retried:
 * it goes to `deadletter.v1.traffic` with the reason in `Dead-Letter-Reason` and its subject in
 * `Dead-Letter-Subject`. See docs/traffic.md.
 */
export const TRAFFIC_V1: ContractPackage = { name: 'traffic.v1', version: '1.1.0' };

export const TRAFFIC_STREAM = 'TRAFFIC';
/** The subjects of this major. */
export const TRAFFIC_SUBJECTS = 'traffic.v1.>';
/**
 * The subjects of the TRAFFIC stream: every major of traffic (`traffic.v1`, `traffic.v2alpha`…),
 * so one durable consumer reads them all and decodes each message by its subject's major.
 */
export const TRAFFIC_STREAM_SUBJECTS = 'traffic.>';

export const trafficSubject = (project: string, location: string, firewallPolicy: string) =>
  `traffic.v1.${project}.${location}.${firewallPolicy}`;

/**
 * Default limits of the TRAFFIC stream: whichever is reached first drops the oldest events.
 * The byte limit is a developer machine's (JetStream reserves it on disk up front).
 */
export const TRAFFIC_STREAM_LIMITS = {
  /** A day: the evaluator can be down for that long without losing traffic. */
  maxAgeMs: 24 * 3600 * 1000,
  /** 1 GiB, about 4 million events of 250 bytes. */
  maxBytes: 1024 ** 3,
  /** A publish retried within two minutes with the same Nats-Msg-Id is stored once. */
  duplicateWindowMs: 2 * 60 * 1000,
} as const;

/** The named protocols; any other is given by its IP protocol number, 0-255. */
export const TRAFFIC_PROTOCOLS = ['tcp', 'udp', 'icmp', 'icmpv6', 'sctp', 'esp', 'ah'] as const;
export type TrafficProtocol = (typeof TRAFFIC_PROTOCOLS)[number] | number;
/** Not exported as a type: the generated schemas keep TrafficProtocol as one union. */
type TrafficProtocolName = (typeof TRAFFIC_PROTOCOLS)[number];

/** IANA numbers of the named protocols: the one table of the services, the importer and the analysis. */
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
/** The name of an IANA protocol number, where it has one (so `6` and `tcp` are one protocol). */
export const protocolNameOf = (protocol: number): TrafficProtocolName | undefined =>
  PROTOCOL_NAMES.get(protocol);

export const TRAFFIC_EVENT_ID_MAX_LENGTH = 128;

/** One connection, as a producer publishes it (JSON). Unknown fields are ignored. */
export interface TrafficEvent {
  /** Unique per event, at most 128 characters; the `Nats-Msg-Id` is `<project>/<id>`. */
  id: string;
  /** When the connection was seen (RFC 3339). */
  time: string;
  direction: 'INGRESS' | 'EGRESS';
  /** IPv4 or IPv6 address. */
  srcIp: string;
  destIp: string;
  protocol: TrafficProtocol;
  srcPort?: number;
  destPort?: number;
  /** Network tags of the instance the connection reached (INGRESS) or left (EGRESS). */
  targetTags?: string[];
  /**
   * Since 1.1.0: secure tags of the connection's source (`tagValues/123`), or its workload
   * labels as a flow log reports them (Hubble: `k8s:app=web`); rules match them with
   * `match.srcSecureTags`.
   */
  srcSecureTags?: string[];
}

const RFC_3339 =
  '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';
const PORT = { type: 'integer', minimum: 0, maximum: 65535 } as const;

/**
 * JSON Schema (draft-07) of a traffic event. Consumers compile it once (it sits on the hot
 * path); addresses are checked by the consumer, as a JSON Schema pattern cannot say "IPv6".
 */
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
