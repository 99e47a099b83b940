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
import type {
  DurableConsumerDeclaration,
  JetStreamDeclarations,
  KvDeclaration,
  StreamDeclaration,
} from '@rollout/contracts';
import { kvAllKeys, kvStream } from './kv-subjects';
import { RECREATED_CONSUMER_FIELDS, configDrift, describeDrift, pushDrift } from './topology-drift';
import { NatsNamespace } from './namespace';

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

/** A stream's config as declared (namespaced); what provisioning applies. */
export function streamConfig(
  decl: StreamDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  return {
    num_replicas: replicas,
    name: ns.stream(decl.name),
    subjects: decl.subjects.map((s) => ns.subject(s)),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(decl.maxAgeMs),
    max_bytes: decl.maxBytes,
    duplicate_window: nanos(decl.duplicateWindowMs),
    allow_direct: decl.allowDirect ?? false,
  };
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

/** A durable's config as declared (namespaced); what provisioning applies. */
export function consumerConfig(
  decl: DurableConsumerDeclaration,
  ns: NatsNamespace,
): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: decl.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(decl.ackWaitMs),
    max_deliver: decl.maxDeliver,
    max_ack_pending: decl.maxAckPending ?? 1000,
    filter_subject: decl.filterSubject ? ns.subject(decl.filterSubject) : '',
  };
}

/** The fields of a KV bucket (one made by the KV view) that provisioning and readiness hold it to. */
export function kvBucketConfig(
  decl: KvDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  if (decl.writeOnce) return writeOnceBucketConfig(decl, ns, replicas);
  const bucket = ns.bucket(decl.bucket);
  return {
    name: kvStream(bucket),
    subjects: [kvAllKeys(bucket)],
    num_replicas: replicas,
    max_age: nanos(decl.ttlMs ?? 0),
    max_msgs_per_subject: decl.history ?? 1,
    allow_direct: true,
  };
}

/**
 * Declares streams, durable consumers and KV buckets, and brings what drifted back to the
 * declaration; running it again, from any replica, changes nothing. An existing stream is
 * updated to the declared config (replicas included: JetStream scales a stream up or down in
 * place); a stream is never removed, so a change nats-server refuses to make in place fails,
 * naming it. A durable whose deliver policy, ack policy, filter or push delivery drifted is
 * removed and created again (nats-server 2.9 cannot update those); its other fields are updated.
 * Consumers inherit their stream's replicas. Uses only nats-server 2.9 features (one filter
 * subject per consumer). Returns what it changed, one sentence each.
 */
export async function declareJetStream(
  connection: NatsConnection,
  ns: NatsNamespace,
  declarations: JetStreamDeclarations,
  { replicas = 1 }: { replicas?: number } = {},
): Promise<string[]> {
  const jsm = await connection.jetstreamManager();
  const changes: string[] = [];
  for (const decl of declarations.streams ?? [])
    await ensureStream(jsm, streamConfig(decl, ns, replicas), 'stream', changes);
  for (const decl of declarations.consumers ?? []) await ensureConsumer(jsm, ns, decl, changes);
  const js = connection.jetstream();
  for (const decl of declarations.kv ?? []) {
    const config = kvBucketConfig(decl, ns, replicas);
    if (decl.writeOnce) {
      await ensureStream(jsm, config, `bucket ${ns.bucket(decl.bucket)}, stream`, changes);
      continue;
    }
    const existed = await jsm.streams.info(config.name).then(
      () => true,
      (error: unknown) => {
        if (apiErrorCode(error) === STREAM_NOT_FOUND) return false;
        throw error;
      },
    );
    await js.views.kv(ns.bucket(decl.bucket), {
      history: decl.history ?? 1,
      replicas,
      // Readers follow a bucket with direct gets, never with a consumer of their own.
      allow_direct: true,
      ...(decl.ttlMs ? { ttl: decl.ttlMs } : {}),
    } satisfies Partial<KvOptions>);
    if (!existed) {
      changes.push(`created bucket ${ns.bucket(decl.bucket)}`);
      continue;
    }
    // An existing bucket is opened as it is: bring its stream to the declaration.
    const { config: actual } = await jsm.streams.info(config.name);
    const drift = configDrift(config, actual);
    if (drift.length === 0) continue;
    await jsm.streams.update(config.name, { ...actual, ...config });
    changes.push(`updated bucket ${ns.bucket(decl.bucket)}: ${describeDrift(drift)}`);
  }
  return changes;
}

const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;

async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
  what: string,
  changes: string[],
) {
  let actual: StreamConfig;
  try {
    actual = (await jsm.streams.info(config.name)).config;
  } catch (error) {
    if (apiErrorCode(error) !== STREAM_NOT_FOUND) throw error;
    await jsm.streams.add(config);
    changes.push(`created ${what} ${config.name}`);
    return;
  }
  const drift = configDrift(config, actual);
  if (drift.length === 0) return;
  try {
    await jsm.streams.update(config.name, { ...actual, ...config });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${what} ${config.name} cannot be brought back to its declaration in place (${describeDrift(drift)}): ${why}. A stream is never removed by provisioning, as its messages would go: remove it by hand (nats stream rm ${config.name}) and provision again`,
    );
  }
  changes.push(`updated ${what} ${config.name}: ${describeDrift(drift)}`);
}

async function ensureConsumer(
  jsm: JetStreamManager,
  ns: NatsNamespace,
  decl: DurableConsumerDeclaration,
  changes: string[],
) {
  const stream = ns.stream(decl.stream);
  const declared = consumerConfig(decl, ns);
  // No filter is no filter_subject at all: nats.js would put an empty one in the create subject.
  const { filter_subject: filter, ...unfiltered } = declared;
  const config = filter ? declared : unfiltered;
  const what = `durable consumer ${decl.durable} on ${stream}`;
  let actual: ConsumerConfig;
  try {
    actual = (await jsm.consumers.info(stream, decl.durable)).config;
  } catch (error) {
    if (apiErrorCode(error) !== CONSUMER_NOT_FOUND) throw error;
    await jsm.consumers.add(stream, config);
    changes.push(`created ${what}`);
    return;
  }
  const drift = [...configDrift(declared, actual), ...pushDrift(actual)];
  if (drift.length === 0) return;
  if (drift.some((d) => RECREATED_CONSUMER_FIELDS.has(d.field))) {
    await jsm.consumers.delete(stream, decl.durable);
    await jsm.consumers.add(stream, config);
    changes.push(
      `recreated ${what}: ${describeDrift(drift)} (deliver policy, ack policy, filter and push delivery cannot be updated in place; it starts again from the declared deliver policy)`,
    );
    return;
  }
  await jsm.consumers.update(stream, decl.durable, config);
  changes.push(`updated ${what}: ${describeDrift(drift)}`);
}
