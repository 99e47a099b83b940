import type { JetStreamDeclarations } from '@rollout/contracts';
import {
  NatsNamespace,
  RECREATED_CONSUMER_FIELDS,
  configDrift,
  consumerConfig,
  describeDrift,
  kvBucketConfig,
  pushDrift,
  streamConfig,
} from '@rollout/platform/nats';
import {
  ConsumerConfig,
  JetStreamManager,
  KvOptions,
  NatsConnection,
  NatsError,
  StreamConfig,
} from 'nats';

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

/**
 * Idempotent, from any replica. A stream is updated in place and never removed, so a change
 * nats-server refuses fails, naming it. A durable whose deliver/ack policy, filter or push delivery
 * drifted is recreated (nats-server 2.9 cannot update those). Uses only nats-server 2.9 features (one filter subject per consumer).
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
  decl: NonNullable<JetStreamDeclarations['consumers']>[number],
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
