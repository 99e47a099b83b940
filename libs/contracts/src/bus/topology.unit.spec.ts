import { busNeedsOf, busTopology, topologyFor } from './topology';

describe('the bus topology', () => {
  it('names what each service checks at boot', () => {
    expect(busNeedsOf('evaluator')).toMatchObject({
      streams: ['TRAFFIC', 'PREVIEW_LOGS', 'DEAD_LETTERS'],
      consumers: [{ stream: 'TRAFFIC', durable: 'evaluator' }],
      buckets: ['EXPERIMENT_STATE', 'ASSERTION_IDS'],
    });
    // With their declarations, whose fields that matter the service compares with the bus.
    expect(busNeedsOf('evaluator').declared?.consumers?.map((c) => c.durable)).toEqual([
      'evaluator',
    ]);
    expect(busNeedsOf('enforcement-service')).toMatchObject({
      streams: [],
      consumers: [],
      buckets: ['ASSERTION_IDS'],
    });
  });

  it('declares each durable on a declared stream, and each stream for some service', () => {
    const topology = busTopology();
    const streams = topology.streams.map((s) => s.name);
    for (const consumer of topology.consumers) expect(streams).toContain(consumer.stream);
    for (const entry of [...topology.streams, ...topology.kv])
      expect(entry.usedBy.length).toBeGreaterThan(0);
    expect(topologyFor(topology, ['experiment-service']).streams.map((s) => s.name)).toEqual([
      'EXPERIMENT_EVENTS',
    ]);
  });
});
