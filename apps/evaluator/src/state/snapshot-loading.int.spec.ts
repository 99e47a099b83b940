import type { INestApplication } from '@nestjs/common';
import { NatsRpcClient } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { Isolation, cleanUp, isolation, rpcClient, startEvaluator } from '../../test/evaluator-app';
import { BLOCK, LIVE } from '../../test/example-policies';
import { ExperimentWorld } from '../../test/experiment-world';
import { allFlows, deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/** The evaluator in-process, started while the experiment-service is still filling EXPERIMENT_STATE. */
let iso: Isolation;
let nc: NatsConnection;
let app: INestApplication;
let rpc: NatsRpcClient;
let world: ExperimentWorld;
let base: string;

const readiness = async () => {
  const response = await fetch(`${base}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { checks: Record<string, { status: string; error?: string }> },
  };
};

beforeAll(async () => {
  iso = isolation();
  nc = await connect({ servers: TEST_NATS_URL });
  rpc = rpcClient(nc, iso);
  world = new ExperimentWorld(nc, iso);
  // The bucket exists but its position key does not: the experiment-service is still filling it.
  await world.createBucket({ filled: false });
  app = await startEvaluator(iso);
  base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await app?.close();
  await nc?.close();
  if (iso) await cleanUp(iso);
});

describe('before its snapshot of live policies and experiments is loaded', () => {
  it('is not ready and consumes no traffic; once loaded, it evaluates that traffic against the snapshot', async () => {
    await eventually(
      async () => ((await readiness()).body.checks.nats.status === 'up' ? true : undefined),
      { what: 'NATS up' },
    );
    const before = await readiness();
    expect(before.status).toBe(503);
    expect(before.body.checks.snapshot).toEqual({
      status: 'down',
      error: 'waiting for the experiment-service to fill EXPERIMENT_STATE',
    });
    expect(before.body.checks.nats.status).toBe('up');
    const early = trafficEvent(1, { srcIp: '10.0.1.7' });
    const seq = await publishTraffic(nc, iso, 'web', [early]);
    // Nothing consumes it: the durable consumer still holds it, undelivered.
    const consumer = await (
      await nc.jetstreamManager()
    ).consumers.info(iso.ns.stream('TRAFFIC'), 'evaluator');
    expect(consumer.num_pending + consumer.num_ack_pending).toBe(1);

    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    expect((await readiness()).status).toBe(503);
    await world.markFilled();
    await eventually(async () => ((await readiness()).status === 200 ? true : undefined), {
      timeoutMs: 20_000,
      what: 'ready',
    });
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'early event settled' });
    const [flow] = await allFlows(rpc, world.experimentName('web', 'block'));
    expect(flow).toMatchObject({
      samples: [{ trafficEventId: early.id }],
      transition: 'ALLOW_TO_DENY',
      liveResult: { action: 'allow', rulePriority: 100 },
      experimentResult: { action: 'deny', rulePriority: 50 },
    });
    expect(await deadLetters(nc, iso)).toEqual([]);
  });
});
