import type { JetStreamDeclarations } from '@rollout/contracts';
import { NatsConnection } from 'nats';
import { consumerConfig, streamConfig } from '../src/jetstream-config';
import { NatsNamespace } from '../src/namespace';

/**
 * Creates the streams and durables a transport test declares, as the provisioning step would
 * (tools/provision, which depends on this lib and so cannot serve its tests), without repairs.
 */
export async function createDeclared(
  connection: NatsConnection,
  ns: NatsNamespace,
  { streams = [], consumers = [] }: Omit<JetStreamDeclarations, 'kv'>,
): Promise<void> {
  const jsm = await connection.jetstreamManager();
  for (const stream of streams) await jsm.streams.add(streamConfig(stream, ns, 1));
  for (const consumer of consumers) {
    // No filter is no filter_subject at all: nats.js would put an empty one in the create subject.
    const { filter_subject: filter, ...unfiltered } = consumerConfig(consumer, ns);
    await jsm.consumers.add(
      ns.stream(consumer.stream),
      filter ? { ...unfiltered, filter_subject: filter } : unfiltered,
    );
  }
}
