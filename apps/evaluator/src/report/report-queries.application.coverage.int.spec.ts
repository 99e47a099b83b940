import { FirewallRule } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
): FirewallRule => ({ priority, direction: 'INGRESS', action, match });
const LIVE = [
  rule(100, 'allow', {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
];
const EXPERIMENT = [
  rule(10, 'deny', {
    srcIpRanges: ['10.0.1.0/24'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  // Opens HTTP from 192.168.0.0/16: a change no previewed connection will exercise.
  rule(20, 'allow', {
    srcIpRanges: ['192.168.0.0/16'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['80'] }],
  }),
  // Shadowed by rule 10: it can never decide.
  rule(30, 'deny', {
    srcIpRanges: ['10.0.1.0/25'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  ...LIVE,
];

/** The experiment's static analysis against the previewed traffic: what no connection tested. */
describe('the preview report: coverage', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'tighten', EXPERIMENT, 'ACTIVE');
    },
  });

  it('lists the differing regions no previewed connection touched, the rules that decided nothing and the shadowed ones', async () => {
    const seq = await publishTraffic(system.nc, system.iso, 'web', [
      trafficEvent(1, { srcIp: '10.0.1.5', destPort: 22 }),
      trafficEvent(2, { srcIp: '10.0.2.5', destPort: 22 }),
    ]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const report = await previewReport(system.rpc, system.world, 'tighten');
    const { coverage } = report.configurations[0];
    expect(coverage).toMatchObject({
      complete: true,
      differingRegions: 2,
      regionsOmitted: 0,
      exact: true,
      unmatchedExperimentRules: [20, 30],
      shadowedRules: [30],
    });
    expect(coverage?.untouchedRegions).toEqual([
      expect.objectContaining({
        direction: 'INGRESS',
        srcIpRanges: ['192.168.0.0/16'],
        layer4Configs: [{ ipProtocols: ['tcp'], ports: ['80'] }],
        liveVerdict: { action: 'deny', rulePriority: null, implied: true },
        experimentVerdict: { action: 'allow', rulePriority: 20, implied: false },
      }),
    ]);
  });
});
