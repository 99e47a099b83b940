import { FirewallRule, ReadinessGateStatus } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (priority: number, action: 'allow' | 'deny', srcIpRange: string): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges: [srcIpRange] },
});
const LIVE = [rule(100, 'deny', '10.0.9.0/24'), rule(200, 'allow', '10.0.0.0/8')];
// Opens 10.0.9.0/24: its traffic goes deny → allow.
const OPEN = [rule(50, 'allow', '10.0.9.0/24'), ...LIVE];
const GATES = [{ noDenyToAllowFrom: '10.0.9.0/25' }, { noDenyToAllowFrom: '192.168.0.0/16' }];

/** The readiness gates as the report judges them on the store's flows: deny → allow from a range. */
describe('the preview report: readiness', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'open', OPEN, 'ACTIVE', undefined, GATES);
    },
  });

  const report = () => previewReport(system.rpc, system.world, 'open');
  const values = (gates: ReadinessGateStatus[] | undefined) =>
    gates?.map((g) => [g.gate.noDenyToAllowFrom, g.value, g.holds]);

  it('counts the deny → allow events of the judged configuration from each range, while ACTIVE and once stopped', async () => {
    let n = 0;
    const from = (srcIp: string) => trafficEvent(n++, { srcIp });
    const seq = await publishTraffic(system.nc, system.iso, 'web', [
      from('10.0.9.1'),
      from('10.0.9.1'),
      from('10.0.9.7'),
      from('10.0.9.200'), // deny → allow, outside 10.0.9.0/25
      from('10.0.1.1'), // allowed by both
    ]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });

    const active = await report();
    expect(active.configurations[0]).toMatchObject({ evaluated: 5, denyToAllow: 4 });
    expect(active.readiness?.experimentEtag).toBe('open-E1');
    expect(values(active.readiness?.gates)).toEqual([
      ['10.0.9.0/25', 3, false],
      ['192.168.0.0/16', 0, true],
    ]);

    // Stopped: the configuration of the version that was ACTIVE is still the one judged.
    const stoppedEtag = await system.world.experiment(
      'web',
      'open',
      OPEN,
      'SUSPENDED',
      undefined,
      GATES,
    );
    const stopped = await eventually(async () => {
      const found = await report();
      return found.readiness?.currentExperimentEtag === stoppedEtag ? found : undefined;
    });
    expect(stopped.readiness?.experimentEtag).toBe('open-E1');
    expect(values(stopped.readiness?.gates)).toEqual(values(active.readiness?.gates));
    expect(stopped.reportEtag).toBe(active.reportEtag);

    // Updated: nothing of the new version is counted, so no configuration is judged.
    const updatedEtag = await system.world.experiment(
      'web',
      'open',
      OPEN,
      undefined,
      undefined,
      GATES,
    );
    const updated = await eventually(async () => {
      const found = await report();
      return found.readiness?.currentExperimentEtag === updatedEtag ? found : undefined;
    });
    expect(updated.readiness?.experimentEtag).toBeUndefined();
    expect(values(updated.readiness?.gates)).toEqual([
      ['10.0.9.0/25', 0, false],
      ['192.168.0.0/16', 0, false],
    ]);
  });
});
