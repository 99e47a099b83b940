import {
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_EVENTS_SUBJECTS,
  EXPERIMENT_STATE_BUCKET,
} from '../experiment/v1';
import {
  INSPECTION_PHASES,
  INSPECTION_RESULTS_SUBJECT,
  inspectionEventSubject,
} from '../inspection/v1';
import {
  PREVIEW_LOGS_STREAM,
  PREVIEW_LOGS_STREAM_LIMITS,
  PREVIEW_LOGS_SUBJECTS,
} from '../preview/v1';
import { TRAFFIC_STREAM, TRAFFIC_STREAM_LIMITS, TRAFFIC_STREAM_SUBJECTS } from '../traffic/v1';
import { ASSERTION_CLOCK_SKEW_MS, ASSERTION_MAX_TTL_MS } from './security';

/** Names and subjects are namespaced on use. */
export interface StreamDeclaration {
  name: string;
  subjects: string[];
  /** Oldest message kept, in ms (0 = forever). */
  maxAgeMs: number;
  /** Bytes kept (-1 = unlimited). */
  maxBytes: number;
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate, in ms. */
  duplicateWindowMs: number;
  allowDirect?: boolean;
}

export interface DurableConsumerDeclaration {
  stream: string;
  durable: string;
  filterSubject?: string;
  ackWaitMs: number;
  maxDeliver: number;
  maxAckPending?: number;
}

export interface KvDeclaration {
  bucket: string;
  history?: number;
  /** How long an entry lives, in ms (absent: forever). */
  ttlMs?: number;
  /**
   * Keys written once: declared with the stream API (the KV view would allow rollups), discard
   * new per subject, no rollup, delete or purge; `maxMsgSize` counts headers.
   */
  writeOnce?: { maxMsgSize: number; maxBytes: number; maxMsgs: number };
}

export interface JetStreamDeclarations {
  streams?: StreamDeclaration[];
  consumers?: DurableConsumerDeclaration[];
  kv?: KvDeclaration[];
}

export const DEAD_LETTER_STREAM: StreamDeclaration = {
  name: 'DEAD_LETTERS',
  subjects: ['deadletter.v1.>'],
  maxAgeMs: 14 * 24 * 3600 * 1000,
  maxBytes: 1024 ** 3,
  duplicateWindowMs: 2 * 60 * 1000,
};

export function deadLetterSubject(stream: string): string {
  return `deadletter.v1.${stream.toLowerCase()}`;
}

/** The header block of the gate's create-if-absent write: an id's entry holds nothing else. */
const EXPECT_NOTHING_HEADER = 'Nats-Expected-Last-Subject-Sequence';
export const ASSERTION_ID_ENTRY_BYTES = `NATS/1.0\r\n${EXPECT_NOTHING_HEADER}: 0\r\n\r\n`.length;
/** Commands per second across every service: five times the 1,000/s we plan for. */
export const ASSERTION_IDS_DESIGN_RATE = 5_000;
/** Measured: 34 bytes of framing and hash, a subject of at most 87 bytes, the header block. */
export const ASSERTION_ID_STORED_BYTES = 192;
const ASSERTION_IDS_MAX_AGE_MS = ASSERTION_MAX_TTL_MS + 2 * ASSERTION_CLOCK_SKEW_MS;
const ASSERTION_IDS_MAX_MSGS = (ASSERTION_IDS_DESIGN_RATE * ASSERTION_IDS_MAX_AGE_MS) / 1000;

/** Kept `iat - skew` to `exp + skew` by the max age: nats-server 2.9 has no per-message TTL. */
export const ASSERTION_IDS_KV: KvDeclaration = {
  bucket: 'ASSERTION_IDS',
  history: 1,
  ttlMs: ASSERTION_IDS_MAX_AGE_MS,
  writeOnce: {
    maxMsgSize: ASSERTION_ID_ENTRY_BYTES,
    maxMsgs: ASSERTION_IDS_MAX_MSGS,
    maxBytes: ASSERTION_IDS_MAX_MSGS * ASSERTION_ID_STORED_BYTES,
  },
};

/** The gateway and adapters only request and reply. */
export type JetStreamService =
  'experiment-service' | 'evaluator' | 'inspection-rules-service' | 'enforcement-service';

export const TRAFFIC_DURABLE = 'evaluator';
export const INSPECTION_STREAM = 'INSPECTION';
export const INSPECTION_RESULTS_STREAM = 'INSPECTION_RESULTS';
export const INSPECTION_DURABLE = 'inspection-rules-service';
export const INSPECTION_MAX_DELIVER = 5;

/** Provisioning reads them from its environment in upper snake case: TRAFFIC_MAX_AGE_MS… */
export interface BusLimits {
  trafficMaxAgeMs: number;
  trafficMaxBytes: number;
  previewLogsMaxAgeMs: number;
  previewLogsMaxBytes: number;
  /** History only: current state is the EXPERIMENT_STATE bucket, kept forever. */
  experimentEventsMaxAgeMs: number;
  /** Before JetStream hands the event to another evaluator replica. */
  evaluatorAckWaitMs: number;
  evaluatorMaxAckPending: number;
}

export const DEFAULT_BUS_LIMITS: BusLimits = {
  trafficMaxAgeMs: TRAFFIC_STREAM_LIMITS.maxAgeMs,
  trafficMaxBytes: TRAFFIC_STREAM_LIMITS.maxBytes,
  previewLogsMaxAgeMs: PREVIEW_LOGS_STREAM_LIMITS.maxAgeMs,
  previewLogsMaxBytes: PREVIEW_LOGS_STREAM_LIMITS.maxBytes,
  experimentEventsMaxAgeMs: 30 * 24 * 3600 * 1000,
  evaluatorAckWaitMs: 30_000,
  evaluatorMaxAckPending: 20_000,
};

type Used<T> = T & { usedBy: readonly JetStreamService[] };

export interface BusTopology {
  streams: Used<StreamDeclaration>[];
  consumers: Used<DurableConsumerDeclaration>[];
  kv: Used<KvDeclaration>[];
}

const TWO_MINUTES = 2 * 60 * 1000;
const WEEK = 7 * 24 * 3600 * 1000;

/** Provisioning applies these; service users may only check them (docs/bus-security.md). */
export function busTopology(limits: BusLimits = DEFAULT_BUS_LIMITS): BusTopology {
  return {
    streams: [
      {
        // Every traffic major (`traffic.>`: v1 and v2alpha beside it); producers only publish.
        name: TRAFFIC_STREAM,
        subjects: [TRAFFIC_STREAM_SUBJECTS],
        maxAgeMs: limits.trafficMaxAgeMs,
        maxBytes: limits.trafficMaxBytes,
        // JetStream refuses a duplicate window longer than the stream's max age.
        duplicateWindowMs: Math.min(
          TRAFFIC_STREAM_LIMITS.duplicateWindowMs,
          limits.trafficMaxAgeMs,
        ),
        // A backtest reads its window with direct gets.
        allowDirect: true,
        usedBy: ['evaluator'],
      },
      {
        name: PREVIEW_LOGS_STREAM,
        subjects: [PREVIEW_LOGS_SUBJECTS],
        maxAgeMs: limits.previewLogsMaxAgeMs,
        maxBytes: limits.previewLogsMaxBytes,
        duplicateWindowMs: Math.min(
          PREVIEW_LOGS_STREAM_LIMITS.duplicateWindowMs,
          limits.previewLogsMaxAgeMs,
        ),
        usedBy: ['evaluator'],
      },
      {
        name: EXPERIMENT_EVENTS_STREAM,
        subjects: [EXPERIMENT_EVENTS_SUBJECTS],
        maxAgeMs: limits.experimentEventsMaxAgeMs,
        // JetStream reserves this on disk when the stream is created; domain events are small.
        maxBytes: 1024 ** 3,
        // Longer than any relay outage we expect to recover from by republishing.
        duplicateWindowMs: Math.min(60 * 60 * 1000, limits.experimentEventsMaxAgeMs),
        usedBy: ['experiment-service'],
      },
      {
        name: INSPECTION_STREAM,
        subjects: INSPECTION_PHASES.map(inspectionEventSubject),
        maxAgeMs: WEEK,
        maxBytes: 1024 ** 3,
        duplicateWindowMs: TWO_MINUTES,
        usedBy: ['inspection-rules-service'],
      },
      {
        name: INSPECTION_RESULTS_STREAM,
        subjects: [INSPECTION_RESULTS_SUBJECT],
        maxAgeMs: WEEK,
        maxBytes: 1024 ** 3,
        duplicateWindowMs: TWO_MINUTES,
        usedBy: ['inspection-rules-service'],
      },
      { ...DEAD_LETTER_STREAM, usedBy: ['evaluator', 'inspection-rules-service'] },
    ],
    consumers: [
      {
        // Filters nothing, so it reads every major. Unlimited deliveries: malformed events are
        // dead-lettered at once, so redeliveries only follow a crash and never drop an event.
        stream: TRAFFIC_STREAM,
        durable: TRAFFIC_DURABLE,
        ackWaitMs: limits.evaluatorAckWaitMs,
        maxDeliver: -1,
        maxAckPending: limits.evaluatorMaxAckPending,
        usedBy: ['evaluator'],
      },
      {
        stream: INSPECTION_STREAM,
        durable: INSPECTION_DURABLE,
        ackWaitMs: 30_000,
        maxDeliver: INSPECTION_MAX_DELIVER,
        usedBy: ['inspection-rules-service'],
      },
    ],
    kv: [
      { bucket: EXPERIMENT_STATE_BUCKET, history: 1, usedBy: ['experiment-service', 'evaluator'] },
      // Shared by every replica, so a replay on any replica, or after a restart, is refused.
      {
        ...ASSERTION_IDS_KV,
        usedBy: [
          'experiment-service',
          'evaluator',
          'inspection-rules-service',
          'enforcement-service',
        ],
      },
    ],
  };
}

/** Checked at boot and then periodically. */
export interface BusNeeds {
  streams: string[];
  consumers: { stream: string; durable: string }[];
  buckets: string[];
  declared?: JetStreamDeclarations;
}

export function topologyFor(
  topology: BusTopology,
  services?: readonly JetStreamService[],
): BusTopology {
  const used = <T extends { usedBy: readonly JetStreamService[] }>(entries: T[]) =>
    services ? entries.filter((e) => e.usedBy.some((s) => services.includes(s))) : entries;
  return {
    streams: used(topology.streams),
    consumers: used(topology.consumers),
    kv: used(topology.kv),
  };
}

export function busNeedsOf(service: JetStreamService): BusNeeds {
  const { streams, consumers, kv } = topologyFor(busTopology(), [service]);
  return {
    streams: streams.map((s) => s.name),
    consumers: consumers.map(({ stream, durable }) => ({ stream, durable })),
    buckets: kv.map((b) => b.bucket),
    declared: { streams, consumers, kv },
  };
}
