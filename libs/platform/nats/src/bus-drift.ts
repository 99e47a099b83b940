import type { BusNeeds } from '@rollout/contracts';
import { NatsConnection, NatsError } from 'nats';
import { consumerConfig, kvBucketConfig, streamConfig } from './jetstream-config';
import { kvStream } from './kv-subjects';
import { NatsNamespace } from './namespace';
import { configDrift, describeDrift, pushDrift } from './topology-drift';

const NOT_FOUND = [10059, 10014]; // stream not found, consumer not found

export const HOW_TO_PROVISION =
  'run the bus provisioning step first (npm start does; in Kubernetes the bus-provision Job; by hand: npm run bus:provision, as the provisioner NATS user)';

export const HOW_TO_REPAIR =
  'run the bus provisioning step again to repair it (in Kubernetes the bus-provision Job; by hand: npm run bus:provision)';

const WATCHED_STREAM_FIELDS = [
  'subjects',
  'allow_direct',
  'allow_rollup_hdrs',
  'deny_delete',
  'deny_purge',
  'discard',
  'discard_new_per_subject',
  'max_msgs_per_subject',
  'max_msg_size',
];
/** Not the limits, which the provisioning step's settings choose. */
const WATCHED_CONSUMER_FIELDS = ['filter_subject', 'deliver_policy', 'ack_policy', 'max_deliver'];

/** Uses only INFO requests of what the service uses, which its runtime user may make. */
export async function busDrift(
  connection: NatsConnection,
  ns: NatsNamespace,
  needs: BusNeeds,
): Promise<string[]> {
  const jsm = await connection.jetstreamManager({ checkAPI: false });
  const missing: string[] = [];
  const drifted: string[] = [];
  const info = async <T>(what: string, get: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await get();
    } catch (error) {
      const code = error instanceof NatsError ? error.api_error?.err_code : undefined;
      if (code === undefined || !NOT_FOUND.includes(code)) throw error;
      missing.push(what);
      return undefined;
    }
  };
  const declared = needs.declared ?? {};
  for (const stream of needs.streams) {
    const found = await info(`stream ${ns.stream(stream)}`, () =>
      jsm.streams.info(ns.stream(stream)),
    );
    const decl = declared.streams?.find((d) => d.name === stream);
    if (!found || !decl) continue;
    const drift = configDrift(streamConfig(decl, ns, 1), found.config, WATCHED_STREAM_FIELDS);
    if (drift.length) drifted.push(`stream ${ns.stream(stream)}: ${describeDrift(drift)}`);
  }
  for (const bucket of needs.buckets) {
    const found = await info(`KV bucket ${ns.bucket(bucket)}`, () =>
      jsm.streams.info(kvStream(ns.bucket(bucket))),
    );
    const decl = declared.kv?.find((d) => d.bucket === bucket);
    if (!found || !decl) continue;
    const drift = configDrift(kvBucketConfig(decl, ns, 1), found.config, WATCHED_STREAM_FIELDS);
    if (drift.length) drifted.push(`KV bucket ${ns.bucket(bucket)}: ${describeDrift(drift)}`);
  }
  for (const { stream, durable } of needs.consumers) {
    if (missing.includes(`stream ${ns.stream(stream)}`)) continue;
    const what = `durable consumer ${durable} on ${ns.stream(stream)}`;
    const found = await info(what, () => jsm.consumers.info(ns.stream(stream), durable));
    const decl = declared.consumers?.find((d) => d.stream === stream && d.durable === durable);
    if (!found || !decl) continue;
    const drift = [
      ...configDrift(consumerConfig(decl, ns), found.config, WATCHED_CONSUMER_FIELDS),
      ...pushDrift(found.config),
    ];
    if (drift.length) drifted.push(`${what}: ${describeDrift(drift)}`);
  }
  return [
    ...(missing.length ? [`${missing.join(', ')} missing: ${HOW_TO_PROVISION}`] : []),
    ...(drifted.length
      ? [`drifted from the declared topology: ${drifted.join('; ')}: ${HOW_TO_REPAIR}`]
      : []),
  ];
}
