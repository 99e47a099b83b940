import { busNeedsOf, busTopology, topologyFor } from './bus-topology';
import { busProvisionOptions } from './provision';

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

describe('the provisioning settings', () => {
  it('takes limits and replicas from the environment, under the names the services had', () => {
    const options = busProvisionOptions({
      NATS_NAMESPACE: 'it1',
      NATS_STREAM_REPLICAS: '3',
      TRAFFIC_MAX_BYTES: '1048576',
      BUS_PROVISION_SERVICES: 'evaluator, experiment-service',
    });
    expect(options).toMatchObject({
      namespace: 'it1',
      replicas: 3,
      services: ['evaluator', 'experiment-service'],
      limits: { trafficMaxBytes: 1048576, evaluatorAckWaitMs: 30_000 },
    });
    expect(busProvisionOptions({}).services).toBeUndefined();
  });

  it('refuses a bad value, naming the variable', () => {
    expect(() => busProvisionOptions({ NATS_STREAM_REPLICAS: '2' })).toThrow(
      /NATS_STREAM_REPLICAS must be 1, 3 or 5/,
    );
    expect(() => busProvisionOptions({ BUS_PROVISION_SERVICES: 'gateway' })).toThrow(
      /BUS_PROVISION_SERVICES/,
    );
    expect(() => busProvisionOptions({ TRAFFIC_MAX_AGE_MS: '-1' })).toThrow(/TRAFFIC_MAX_AGE_MS/);
  });
});
