import {
  AckPolicy,
  ConsumerConfig,
  DeliverPolicy,
  JetStreamManager,
  KvOptions,
  NatsConnection,
  NatsError,
  RetentionPolicy,
  StorageType,
  StreamConfig,
  DiscardPolicy,
  nanos,
} from 'nats';
import { kvAllKeys, kvStream } from './kv-subjects';
import { NatsNamespace } from './namespace';

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
  retention?: RetentionPolicy;
  storage?: StorageType;
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

const ALREADY_IN_USE = 10058; // JSStreamNameExistErr: same name, different config
const CONSUMER_EXISTS = 10148; // JSConsumerAlreadyExists with a different config

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

function streamConfig(
  decl: StreamDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  return {
    num_replicas: replicas,
    name: ns.stream(decl.name),
    subjects: decl.subjects.map((s) => ns.subject(s)),
    retention: decl.retention ?? RetentionPolicy.Limits,
    storage: decl.storage ?? StorageType.File,
    max_age: nanos(decl.maxAgeMs),
    max_bytes: decl.maxBytes,
    duplicate_window: nanos(decl.duplicateWindowMs),
    allow_direct: decl.allowDirect ?? false,
  };
}

/**
 * Declares streams, durable consumers and KV buckets so that running it again, from any
 * replica, is harmless: an existing stream is updated to the declared config (replicas
 * included: JetStream scales a stream up or down in place), a bucket's replicas likewise.
 * Consumers inherit their stream's replicas. Uses only nats-server 2.9 features (one filter
 * subject per consumer).
 */
export async function declareJetStream(
  connection: NatsConnection,
  ns: NatsNamespace,
  declarations: JetStreamDeclarations,
  { replicas = 1 }: { replicas?: number } = {},
): Promise<void> {
  const jsm = await connection.jetstreamManager();
  for (const decl of declarations.streams ?? [])
    await ensureStream(jsm, streamConfig(decl, ns, replicas));
  for (const decl of declarations.consumers ?? []) await ensureConsumer(jsm, ns, decl);
  const js = connection.jetstream();
  for (const decl of declarations.kv ?? []) {
    if (decl.writeOnce) {
      await ensureStream(jsm, writeOnceBucketConfig(decl, ns, replicas));
      continue;
    }
    const options: Partial<KvOptions> = {
      history: decl.history ?? 1,
      replicas,
      // Readers follow a bucket with direct gets, never with a consumer of their own.
      allow_direct: true,
      ...(decl.ttlMs ? { ttl: decl.ttlMs } : {}),
    };
    await js.views.kv(ns.bucket(decl.bucket), options);
    // An existing bucket is opened as it is: bring its stream to the declared replicas and TTL.
    const stream = kvStream(ns.bucket(decl.bucket));
    const { config } = await jsm.streams.info(stream);
    const maxAge = nanos(decl.ttlMs ?? 0);
    if (config.num_replicas !== replicas || config.max_age !== maxAge)
      await jsm.streams.update(stream, { ...config, num_replicas: replicas, max_age: maxAge });
  }
}

/**
 * The stream of a write-once bucket, as the KV convention names it (`KV_<bucket>`, subjects
 * `$KV.<bucket>.>`), so that a key is still a publish on `$KV.<bucket>.<key>`.
 */
export function writeOnceBucketConfig(
  decl: KvDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  const limits = decl.writeOnce;
  if (!limits) throw new Error(`bucket ${decl.bucket} is not declared write-once`);
  const bucket = ns.bucket(decl.bucket);
  const maxAgeMs = decl.ttlMs ?? 0;
  return {
    name: kvStream(bucket),
    subjects: [kvAllKeys(bucket)],
    num_replicas: replicas,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(maxAgeMs),
    max_msgs_per_subject: decl.history ?? 1,
    max_msg_size: limits.maxMsgSize,
    max_bytes: limits.maxBytes,
    max_msgs: limits.maxMsgs,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    allow_rollup_hdrs: false,
    deny_delete: true,
    deny_purge: true,
    allow_direct: false,
    duplicate_window: nanos(Math.min(maxAgeMs || 120_000, 120_000)),
  };
}

async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
) {
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (apiErrorCode(error) !== ALREADY_IN_USE) throw error;
    await jsm.streams.update(config.name, config);
  }
}

async function ensureConsumer(
  jsm: JetStreamManager,
  ns: NatsNamespace,
  decl: DurableConsumerDeclaration,
) {
  const stream = ns.stream(decl.stream);
  const config: Partial<ConsumerConfig> = {
    durable_name: decl.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(decl.ackWaitMs),
    max_deliver: decl.maxDeliver,
    max_ack_pending: decl.maxAckPending ?? 1000,
    ...(decl.filterSubject ? { filter_subject: ns.subject(decl.filterSubject) } : {}),
  };
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    if (apiErrorCode(error) !== CONSUMER_EXISTS) throw error;
    await jsm.consumers.update(stream, decl.durable, config);
  }
}
