import { FirewallRule } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { inForce, previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
): FirewallRule => ({ priority, direction: 'INGRESS', action, match });
const LIVE = [rule(100, 'allow', { srcIpRanges: ['10.0.0.0/8'] })];
/** Blocks SSH from 10.0.1.0/24. */
const BLOCK_SSH = [
  rule(50, 'deny', {
    srcIpRanges: ['10.0.1.0/24'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  ...LIVE,
];
/** Blocks all of 10.0.1.0/24 and 10.0.2.0/24. */
const BLOCK_NETS = [rule(40, 'deny', { srcIpRanges: ['10.0.1.0/24', '10.0.2.0/24'] }), ...LIVE];

/** Flows a cohort keeps here (EVALUATOR_MAX_FLOWS), small enough to fill. */
const MAX_FLOWS = 1000;

/** Two ACTIVE experiments on one policy: each report lists where the other decides differently. */
describe('the preview report: cross-experiment disagreement', () => {
  const system = evaluatorSystem({
    env: { EVALUATOR_MAX_FLOWS: String(MAX_FLOWS) },
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'ssh', BLOCK_SSH, 'ACTIVE');
      await world.experiment('web', 'nets', BLOCK_NETS, 'ACTIVE');
      await world.policy('api', LIVE);
      await world.experiment('api', 'alone', BLOCK_SSH, 'ACTIVE');
    },
  });

  const configuration = async (policy: string, experiment: string) =>
    (await previewReport(system.rpc, system.world, experiment, policy)).configurations[0];

  it('counts the events each other experiment decides differently, with the flows that carry most of them', async () => {
    let n = 0;
    const event = (srcIp: string, destPort: number) => trafficEvent(n++, { srcIp, destPort });
    const events = [
      // Both deny: SSH from 10.0.1.0/24.
      event('10.0.1.5', 22),
      event('10.0.1.6', 22),
      // Only nets denies: HTTPS from 10.0.1.0/24 (three events of one flow), anything from 10.0.2.0/24.
      event('10.0.1.5', 443),
      event('10.0.1.5', 443),
      event('10.0.1.5', 443),
      event('10.0.2.9', 22),
      // Both allow.
      event('10.0.3.1', 22),
    ];
    await publishTraffic(system.nc, system.iso, 'api', [event('10.0.2.9', 22)]);
    const seq = await publishTraffic(system.nc, system.iso, 'web', events);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });

    const ssh = await configuration('web', 'ssh');
    const nets = await configuration('web', 'nets');
    const flow = (srcIp: string, destPort: number, action: 'allow' | 'deny', count: number) => ({
      direction: 'INGRESS',
      srcIp,
      destIp: '192.0.2.10',
      protocol: 'tcp',
      destPort,
      action,
      otherAction: action === 'allow' ? 'deny' : 'allow',
      count,
    });
    expect(ssh.disagreements).toEqual([
      {
        experiment: system.world.experimentName('web', 'nets'),
        experimentEtag: nets.experimentEtag,
        events: 4,
        topFlows: [flow('10.0.1.5', 443, 'allow', 3), flow('10.0.2.9', 22, 'allow', 1)],
        eventsOutsideFlows: 0,
      },
    ]);
    expect(nets.disagreements).toEqual([
      {
        experiment: system.world.experimentName('web', 'ssh'),
        experimentEtag: ssh.experimentEtag,
        events: 4,
        topFlows: [flow('10.0.1.5', 443, 'deny', 3), flow('10.0.2.9', 22, 'deny', 1)],
        eventsOutsideFlows: 0,
      },
    ]);
    // One experiment alone on its policy disagrees with no one.
    expect((await configuration('api', 'alone')).disagreements).toEqual([]);
  });

  it(`keeps at most ${MAX_FLOWS} flows for experiments ACTIVE together, still counting the kept ones exactly and the others outside`, async () => {
    let n = 10_000;
    // Distinct flows (a destination each, none seen before) where only nets denies: HTTPS from 10.0.1.0/24 and 10.0.2.0/24.
    const flow = (i: number) =>
      trafficEvent(n++, {
        srcIp: `10.0.${1 + (i % 2)}.${(i >> 1) % 250}`,
        destIp: `198.18.${Math.floor(i / 250)}.${i % 250}`,
        destPort: 443,
      });
    const before = (await configuration('web', 'ssh')).disagreements?.[0];
    // Every flow the two keep so far is one nets changes: the cohort's flows are nets' flows.
    const keptBefore = (await configuration('web', 'nets')).flows ?? 0;
    const fill = Array.from({ length: MAX_FLOWS + 50 }, (_, i) => flow(i));
    let seq = await publishTraffic(system.nc, system.iso, 'web', fill);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const full = (await configuration('web', 'ssh')).disagreements?.[0];
    expect(full?.events).toBe((before?.events ?? 0) + fill.length);
    const outsideAtCap = full?.eventsOutsideFlows ?? 0;
    expect(outsideAtCap).toBe(fill.length - (MAX_FLOWS - keptBefore));
    // The same flows are left out of nets' own changed flows.
    const nets = await configuration('web', 'nets');
    expect([nets.flows, nets.changedOutsideFlows]).toEqual([MAX_FLOWS, outsideAtCap]);

    // At the cap: three more events of the most frequent kept flow count in it; a new flow counts outside.
    const top = full!.topFlows[0];
    const again = Array.from({ length: 3 }, () =>
      trafficEvent(n++, { srcIp: top.srcIp, destIp: top.destIp, destPort: top.destPort }),
    );
    seq = await publishTraffic(system.nc, system.iso, 'web', [
      ...again,
      trafficEvent(n++, { srcIp: '10.0.2.251', destIp: '198.51.100.1', destPort: 443 }),
    ]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const after = (await configuration('web', 'ssh')).disagreements?.[0];
    expect(after?.topFlows[0]).toEqual({ ...top, count: top.count + 3 });
    expect(after?.eventsOutsideFlows).toBe(outsideAtCap + 1);
    expect(after?.events).toBe((full?.events ?? 0) + 4);
  });

  it('adds a pair up across the cohorts it was in, merging its flows', async () => {
    const before = (await configuration('web', 'ssh')).disagreements?.[0];
    const top = before!.topFlows[0];
    // A third experiment starts: ssh and nets go on in a new cohort, with flows of its own.
    await system.world.experiment('web', 'third', LIVE, 'ACTIVE');
    await inForce(system.app, system.world, 'web', (view) => view.active.length === 3);
    let n = 20_000;
    const seq = await publishTraffic(
      system.nc,
      system.iso,
      'web',
      Array.from({ length: 2 }, () =>
        trafficEvent(n++, { srcIp: top.srcIp, destIp: top.destIp, destPort: top.destPort }),
      ),
    );
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const after = (await configuration('web', 'ssh')).disagreements?.find(
      (pair) => pair.experiment === before!.experiment,
    );
    expect(after?.events).toBe(before!.events + 2);
    expect(after?.topFlows[0]).toEqual({ ...top, count: top.count + 2 });
    expect(after?.eventsOutsideFlows).toBe(before!.eventsOutsideFlows);
  });
});
