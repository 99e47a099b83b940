import { eventually } from '@rollout/testing/kit';
import { readiness as readinessOf } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE } from '../../test/example-policies';
import { allFlows, deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/**
 * The evaluator in-process, started while the experiment-service is still filling EXPERIMENT_STATE
 * (the bucket exists, its position key does not).
 */
const system = evaluatorSystem({ bucket: 'filling' });
const readiness = () => readinessOf(system.app);

describe('before its snapshot of live policies and experiments is loaded', () => {
  it('is not ready and consumes no traffic; once loaded, it evaluates that traffic against the snapshot', async () => {
    const { nc, iso, world, rpc } = system;
    await eventually(
      async () => ((await readiness()).checks.nats.status === 'up' ? true : undefined),
      { what: 'NATS up' },
    );
    const before = await readiness();
    expect(before.status).toBe(503);
    expect(before.checks.snapshot).toEqual({
      status: 'down',
      error: 'waiting for the experiment-service to fill EXPERIMENT_STATE',
    });
    expect(before.checks.nats.status).toBe('up');
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
