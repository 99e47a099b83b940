import type { ContractPackage } from '@rollout/contracts';

/** `traffic.v2alpha`: v1 in all-or-nothing batches, the address fields spelled out. */
export const TRAFFIC_V2ALPHA: ContractPackage = {
  name: 'traffic.v2alpha',
  version: '2.1.0-alpha.1',
};

export const TRAFFIC_V2ALPHA_SUBJECTS = 'traffic.v2alpha.>';

export const trafficV2alphaSubject = (project: string, location: string, firewallPolicy: string) =>
  `traffic.v2alpha.${project}.${location}.${firewallPolicy}`;

/** 1,000 events of ~250 bytes stay well under NATS's 1 MB. */
export const TRAFFIC_V2ALPHA_BATCH_MAX_EVENTS = 1000;

/** Any other protocol is given by its number, 0-255. */
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

/** Unknown fields are ignored. */
export interface TrafficEvent {
  /**
   * Unique per event.
   * @minLength 1
   * @maxLength 128
   */
  id: string;
  /**
   * RFC 3339.
   * @maxLength 40
   */
  time: string;
  direction: 'INGRESS' | 'EGRESS';
  /**
   * `srcIp` in traffic.v1.
   * @minLength 2
   * @maxLength 45
   */
  sourceIp: string;
  /**
   * `destIp` in traffic.v1.
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
   * Of the instance reached (INGRESS) or left (EGRESS).
   * @maxItems 64
   */
  targetTags?: string[];
  /**
   * `srcSecureTags` in traffic.v1.
   * @maxItems 64
   */
  sourceSecureTags?: string[];
}

/** All or nothing. */
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

/** Hand-written for the hot path; a pattern cannot say "IPv6", so consumers check addresses. */
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

/** The envelope only: each event is checked with the schema above. */
export const TRAFFIC_V2ALPHA_BATCH_SCHEMA = {
  $id: 'https://policy-rollout.dev/schemas/traffic.v2alpha.TrafficEventBatch.json',
  type: 'object',
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: TRAFFIC_V2ALPHA_BATCH_MAX_EVENTS },
  },
} as const;
