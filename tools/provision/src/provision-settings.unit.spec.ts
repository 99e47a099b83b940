import { busProvisionOptions } from './provision';

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
