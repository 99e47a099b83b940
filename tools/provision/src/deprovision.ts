import { busTopology } from '@rollout/contracts';
import { NatsNamespace, kvStream } from '@rollout/platform/nats';
import { NatsConnection, NatsError } from 'nats';

const STREAM_NOT_FOUND = 10059;

/** What removing one deployment's bus took away, and what was not there. */
export interface RemovedBus {
  /** Streams and buckets (as their streams, `KV_<bucket>`) deleted, with their consumers. */
  removed: string[];
  absent: string[];
}

/**
 * Deletes every stream and KV bucket of the topology under `namespace` (their durable consumers
 * go with them): the opposite of provisionBus, for one deployment (a second instance on a
 * developer machine, a test run). Only the declared names under that namespace are touched, so
 * another namespace's streams, and streams the topology does not declare, stay. Needs a
 * credential that may use JetStream's whole API.
 */
export async function removeBus(
  connection: NatsConnection,
  namespace: string | undefined,
): Promise<RemovedBus> {
  const ns = new NatsNamespace(namespace);
  const topology = busTopology();
  const names = [
    ...topology.streams.map((s) => ns.stream(s.name)),
    ...topology.kv.map((b) => kvStream(ns.bucket(b.bucket))),
  ];
  const jsm = await connection.jetstreamManager();
  const done: RemovedBus = { removed: [], absent: [] };
  for (const name of names) {
    try {
      await jsm.streams.delete(name);
      done.removed.push(name);
    } catch (error) {
      if (!(error instanceof NatsError && error.api_error?.err_code === STREAM_NOT_FOUND))
        throw error;
      done.absent.push(name);
    }
  }
  return done;
}
