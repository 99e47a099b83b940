import type { ContractPackage } from '@rollout/contracts';

/**
 * `traffic.v2alpha`: the next major of production traffic, on the same `TRAFFIC` stream and
 * durable consumer as `traffic.v1`. What breaks, deliberately: a message carries a batch of 1 to
 * 1,000 events, and the address fields are spelled out (`srcIp` → `sourceIp`, `destPort` →
 * `destinationPort`…). Everything else, results included, is as in v1; `Nats-Msg-Id` is a batch
 * id through `trafficMessageId`. A batch is all or nothing: when any event is invalid the whole
 * message is dead-lettered, with a reason naming the event's index (`events[3].sourceIp …`), so
 * the dead letter is the producer's own message, ready to fix and publish again.
 */
export const TRAFFIC_V2ALPHA: ContractPackage = {
  name: 'traffic.v2alpha',
  version: '2.1.0-alpha.1',
};

/** The major as it appears in the subject (`traffic.v2alpha.…`). */
export const TRAFFIC_V2ALPHA_SUBJECTS = 'traffic.v2alpha.>';

export const trafficV2alphaSubject = (project: string, location: string, firewallPolicy: string) =>
  `traffic.v2alpha.${project}.${location}.${firewallPolicy}`;

/** Most events in one batch (a batch of 1,000 events of ~250 bytes stays well under NATS's 1 MB). */
export const TRAFFIC_V2ALPHA_BATCH_MAX_EVENTS = 1000;

/** The named protocols; any other is given by its IP protocol number, 0-255 (as in v1). */
export const TRAFFIC_V2ALPHA_PROTOCOLS = [
  'tcp',
  'udp',
  'icmp',
  'icmpv6',
  'sctp',
  'esp',
  'ah',
] as const;
export type TrafficProtocol = (typeof TRAFFIC_V2ALPHA_PROTOCOLS)[number] | number;

/** One connection (JSON). Unknown fields are ignored. */
export interface TrafficEvent {
  /**
   * Unique per event, at most 128 characters.
   * @minLength 1
   * @maxLength 128
   */
  id: string;
  /**
   * When the connection was seen (RFC 3339).
   * @maxLength 40
   */
  time: string;
  direction: 'INGRESS' | 'EGRESS';
  /**
   * IPv4 or IPv6 address (`srcIp` in traffic.v1).
   * @minLength 2
   * @maxLength 45
   */
  sourceIp: string;
  /**
   * IPv4 or IPv6 address (`destIp` in traffic.v1).
   * @minLength 2
   * @maxLength 45
   */
  destinationIp: string;
  protocol: TrafficProtocol;
  /**
   * `srcPort` in traffic.v1.
   * @asType integer
   * @minimum 0
   * @maximum 65535
   */
  sourcePort?: number;
  /**
   * `destPort` in traffic.v1.
   * @asType integer
   * @minimum 0
   * @maximum 65535
   */
  destinationPort?: number;
  /**
   * Network tags of the instance the connection reached (INGRESS) or left (EGRESS).
   * @maxItems 64
   */
  targetTags?: string[];
  /**
   * `srcSecureTags` in traffic.v1: secure tags or workload labels of the connection's source.
   * @maxItems 64
   */
  sourceSecureTags?: string[];
}

/** Events published together in one message (all or nothing: see the package). */
export interface TrafficEventBatch {
  /**
   * @minItems 1
   * @maxItems 1000
   */
  events: TrafficEvent[];
}

const RFC_3339 =
  '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';
const PORT = { type: 'integer', minimum: 0, maximum: 65535 } as const;

/**
 * JSON Schema (draft-07) of one event of a batch, compiled once by consumers (hot path);
 * addresses are checked by the consumer, as a JSON Schema pattern cannot say "IPv6".
 */
export const TRAFFIC_V2ALPHA_EVENT_SCHEMA = {
  $id: 'https://policy-rollout.dev/schemas/traffic.v2alpha.TrafficEvent.json',
  type: 'object',
  required: ['id', 'time', 'direction', 'sourceIp', 'destinationIp', 'protocol'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 128 },
    time: { type: 'string', maxLength: 40, pattern: RFC_3339 },
    direction: { enum: ['INGRESS', 'EGRESS'] },
    sourceIp: { type: 'string', minLength: 2, maxLength: 45 },
    destinationIp: { type: 'string', minLength: 2, maxLength: 45 },
    protocol: {
      oneOf: [
        { enum: [...TRAFFIC_V2ALPHA_PROTOCOLS] },
        { type: 'integer', minimum: 0, maximum: 255 },
      ],
    },
    sourcePort: PORT,
    destinationPort: PORT,
    targetTags: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', minLength: 1, maxLength: 63 },
    },
    sourceSecureTags: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', minLength: 1, maxLength: 256 },
    },
  },
} as const;

/** JSON Schema (draft-07) of a batch: its envelope only; each event is checked with the schema above. */
export const TRAFFIC_V2ALPHA_BATCH_SCHEMA = {
  $id: 'https://policy-rollout.dev/schemas/traffic.v2alpha.TrafficEventBatch.json',
  type: 'object',
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: TRAFFIC_V2ALPHA_BATCH_MAX_EVENTS },
  },
} as const;
