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

/*
 * The bus's shape as data: every stream, durable consumer and KV bucket, and which service uses
 * each. It is not a message contract (no golden, no lock): the provisioning step applies it,
 * services check the bus against the part they use, and the permissions are drawn from it.
 */

/** A stream as the code that owns it declares it; names and subjects are namespaced on use. */
export interface StreamDeclaration {
  name: string;
  subjects: string[];
  /** Oldest message kept, in ms (0 = forever). */
  maxAgeMs: number;
  /** Bytes kept (-1 = unlimited). */
  maxBytes: number;
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate, in ms. */
  duplicateWindowMs: number;
  /** Whether its messages may be read with direct gets (a reader without a consumer of its own). */
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
   * A bucket whose keys are written once and never changed: its stream is declared with the
   * stream API (the KV view would allow rollups), one entry per key that no later write may
   * replace (discard new per subject), no rollup, delete or purge, values of at most
   * `maxMsgSize` bytes counting headers, and at most `maxBytes`/`maxMsgs` held (discard new).
   */
  writeOnce?: { maxMsgSize: number; maxBytes: number; maxMsgs: number };
}

export interface JetStreamDeclarations {
  streams?: StreamDeclaration[];
  consumers?: DurableConsumerDeclaration[];
  kv?: KvDeclaration[];
}

/** Where poison messages go: `deadletter.v1.<stream>`, kept in this stream for inspection. */
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

/** The header block of the gate's create-if-absent write, the only thing an id's entry holds. */
const EXPECT_NOTHING_HEADER = 'Nats-Expected-Last-Subject-Sequence';
export const ASSERTION_ID_ENTRY_BYTES = `NATS/1.0\r\n${EXPECT_NOTHING_HEADER}: 0\r\n\r\n`.length;
/** Commands per second, across every service, the bucket is sized for (five times the 1,000/s we plan for). */
export const ASSERTION_IDS_DESIGN_RATE = 5_000;
/**
 * What one id takes in the store, at most: the stored record's 34 bytes of framing and hash
 * (measured), its subject (`$KV.<namespace>_ASSERTION_IDS.<uuid>`, at most 87 bytes) and the
 * header block.
 */
export const ASSERTION_ID_STORED_BYTES = 192;
const ASSERTION_IDS_MAX_AGE_MS = ASSERTION_MAX_TTL_MS + 2 * ASSERTION_CLOCK_SKEW_MS;
const ASSERTION_IDS_MAX_MSGS = (ASSERTION_IDS_DESIGN_RATE * ASSERTION_IDS_MAX_AGE_MS) / 1000;

/**
 * The ids of the actor assertions that state-changing requests used, one key each, shared by
 * every replica of every service that verifies assertions. A key lives as long as an assertion
 * can be accepted: from `iat - skew` to `exp + skew`, at most the longest lifetime plus twice
 * the skew (nats-server 2.9 has no per-message TTL, so the bucket's max age says it). Written
 * once: no rollup, delete or purge, no second entry on a key, an empty value only, and at most
 * the ids of `ASSERTION_IDS_DESIGN_RATE` commands a second over the max age (docs/bus-security.md).
 */
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

/**
 * The services that use JetStream; the others (gateway, adapters) only request and reply. The
 * enforcement-service's one use is the ASSERTION_IDS bucket of its replay check.
 */
export type JetStreamService =
  'experiment-service' | 'evaluator' | 'inspection-rules-service' | 'enforcement-service';

/** The durable consumer on TRAFFIC that every evaluator replica shares. */
export const TRAFFIC_DURABLE = 'evaluator';
export const INSPECTION_STREAM = 'INSPECTION';
export const INSPECTION_RESULTS_STREAM = 'INSPECTION_RESULTS';
/** The durable consumer on INSPECTION that every inspection-rules-service replica shares. */
export const INSPECTION_DURABLE = 'inspection-rules-service';
export const INSPECTION_MAX_DELIVER = 5;

/**
 * The limits an operator may set (the provisioning step reads them from its environment, under
 * these names in upper snake case: TRAFFIC_MAX_AGE_MS…); defaults in `DEFAULT_BUS_LIMITS`.
 */
export interface BusLimits {
  trafficMaxAgeMs: number;
  trafficMaxBytes: number;
  previewLogsMaxAgeMs: number;
  previewLogsMaxBytes: number;
  /** How long EXPERIMENT_EVENTS keeps history (current state is the EXPERIMENT_STATE bucket, kept forever). */
  experimentEventsMaxAgeMs: number;
  /** How long an evaluator replica may hold a traffic event before JetStream hands it to another. */
  evaluatorAckWaitMs: number;
  /** Traffic events handed out and not yet acknowledged, across every evaluator replica. */
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

/** A declaration and the services whose runtime needs it (to read or write). */
type Used<T> = T & { usedBy: readonly JetStreamService[] };

export interface BusTopology {
  streams: Used<StreamDeclaration>[];
  consumers: Used<DurableConsumerDeclaration>[];
  kv: Used<KvDeclaration>[];
}

const TWO_MINUTES = 2 * 60 * 1000;
const WEEK = 7 * 24 * 3600 * 1000;

/**
 * Every stream, durable consumer and KV bucket of the system, in one place: the provisioning
 * step creates or updates them (with its admin credential), the services only check that what
 * they use exists (their NATS users may not create, change or delete any of it:
 * docs/bus-security.md). A new stream, consumer or bucket is one entry here, naming the
 * services that use it.
 */
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
        // Events in, results out; both drop a repeated Nats-Msg-Id within two minutes.
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
        // Filters nothing, so it reads every major. Unlimited deliveries: a malformed event is
        // dead-lettered at once by the evaluator, so redeliveries only follow a crash or an
        // outage, and never drop an event.
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
      // Current state: the last entry per key, forever. The experiment-service writes, the evaluator reads.
      { bucket: EXPERIMENT_STATE_BUCKET, history: 1, usedBy: ['experiment-service', 'evaluator'] },
      // Actor-assertion ids of state-changing requests, create-if-absent, kept as long as an
      // assertion is accepted: a replay on any replica, or after a restart, is refused.
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

/**
 * What one service checks, at boot and then periodically: the names of the streams, durable
 * consumers and buckets it uses, and (`declared`) their declarations, whose fields that matter
 * it compares with the bus.
 */
export interface BusNeeds {
  streams: string[];
  consumers: { stream: string; durable: string }[];
  buckets: string[];
  declared?: JetStreamDeclarations;
}

/** The part of the topology some services use (all of it without `services`). */
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
