import { FirewallRule } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { previewReport, readiness as readinessOf } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const ALLOW_ALL: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['0.0.0.0/0'] } },
];
const DENY_ALL: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['0.0.0.0/0'] } },
];

describe('the evaluator and the EXPERIMENT_STATE bucket', () => {
  const system = evaluatorSystem({ bucket: 'none' });
  const readiness = () => readinessOf(system.app);
  const report = (policy: string, experiment: string) =>
    previewReport(system.rpc, system.world, experiment, policy);
  const evaluated = async (policy: string, experiment: string) =>
    (await report(policy, experiment)).configurations.reduce((sum, c) => sum + c.evaluated, 0);

  it('waits for the experiment-service to fill the bucket, holding traffic on its stream rather than dead-lettering it', async () => {
    const { nc, iso, world } = system;
    await eventually(
      async () => ((await readiness()).checks.nats?.status === 'up' ? true : undefined),
      { what: 'NATS up' },
    );
    expect((await readiness()).checks.snapshot).toEqual({
      status: 'down',
      error: 'waiting for the experiment-service to fill EXPERIMENT_STATE',
    });
    const early = trafficEvent(1);
    const seq = await publishTraffic(nc, iso, 'web', [early]);

    await world.createBucket({ filled: false });
    await world.policy('web', ALLOW_ALL);
    await world.experiment('web', 'lockdown', DENY_ALL, 'ACTIVE');
    // Entries without the position key: the bucket is still being filled.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await readiness()).ready).toBe(false);

    await world.markFilled();
    await eventually(async () => ((await readiness()).ready ? true : undefined), {
      timeoutMs: 10_000,
      what: 'ready',
    });
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'the early event settled' });
    expect(await deadLetters(nc, iso)).toEqual([]);
    expect((await report('web', 'lockdown')).configurations).toMatchObject([
      { evaluated: 1, allowToDeny: 1 },
    ]);
  });

  it('applies delete markers: a committed or deleted experiment stops counting, a deleted policy stops taking traffic', async () => {
    const { nc, iso, world } = system;
    await world.experiment('web', 'other', DENY_ALL, 'ACTIVE');
    await world.endExperiment('web', 'lockdown');
    await eventually(
      async () => {
        const seq = await publishTraffic(nc, iso, 'web', [trafficEvent(2)]);
        await eventually(() => settledUpTo(nc, iso, seq));
        return (await evaluated('web', 'other')) > 0 ? true : undefined;
      },
      { what: 'the other experiment counting' },
    );
    const before = await evaluated('web', 'lockdown');
    const seq = await publishTraffic(nc, iso, 'web', [trafficEvent(3)]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled' });
    expect(await evaluated('web', 'lockdown')).toBe(before);

    await world.deletePolicy('web');
    await eventually(
      async () => {
        const next = await publishTraffic(nc, iso, 'web', [trafficEvent(4)]);
        await eventually(() => settledUpTo(nc, iso, next));
        return (await deadLetters(nc, iso)).some(
          (letter) =>
            letter.reason === 'no live policy projects/acme/locations/global/firewallPolicies/web',
        )
          ? true
          : undefined;
      },
      { what: 'traffic of the deleted policy dead-lettered' },
    );
  });
});
