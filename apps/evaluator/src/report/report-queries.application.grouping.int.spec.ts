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
const ssh = [{ ipProtocol: 'tcp', ports: ['22'] }];
const LIVE = [
  rule(100, 'allow', { srcIpRanges: ['0.0.0.0/0', '::/0'], layer4Configs: ssh }),
  // Neither is ever hit by the traffic below: the live policy's unused rules.
  rule(200, 'allow', {
    srcIpRanges: ['0.0.0.0/0'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }],
  }),
  rule(300, 'deny', { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'udp' }] }),
];
const EXPERIMENT = [
  rule(10, 'deny', { srcIpRanges: ['198.51.0.0/16'], layer4Configs: ssh }),
  rule(11, 'deny', { srcIpRanges: ['2001:db8::/32'], layer4Configs: ssh }),
  ...LIVE,
];
const V6_DEST = '2001:db8:ffff::10';

/**
 * Changed traffic grouped by who it hits: the diff's sentences with the events, flows and sources
 * in their regions, the changed sources and destinations by address block, and the live policy's
 * own rule usage.
 */
describe('the preview report: changed traffic grouped', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'close-ssh', EXPERIMENT, 'ACTIVE');
    },
  });

  it('counts each sentence, each address block and each live rule exactly against the flows', async () => {
    let n = 0;
    const events = (count: number, srcIp: string, destIp = '192.0.2.10') =>
      Array.from({ length: count }, () => trafficEvent(++n, { srcIp, destIp }));
    const seq = await publishTraffic(system.nc, system.iso, 'web', [
      ...events(3, '198.51.100.1'),
      ...events(2, '198.51.100.2'),
      ...events(1, '198.51.7.9'),
      ...events(2, '2001:db8:1:2::5', V6_DEST),
      ...events(1, '2001:db8:1:3::5', V6_DEST),
      // Allowed by both: not changed, in no group.
      ...events(4, '10.0.0.1'),
    ]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const [configuration] = (await previewReport(system.rpc, system.world, 'close-ssh'))
      .configurations;

    expect(configuration).toMatchObject({ changed: 9, flows: 5, changedOutsideFlows: 0 });
    expect(configuration.coverage?.changedByRegion).toEqual([
      {
        summary: 'tcp/22 from 198.51.0.0/16 is now denied',
        action: 'deny',
        events: 6,
        flows: 3,
        sources: 3,
      },
      {
        summary: 'tcp/22 from 2001:db8::/32 is now denied',
        action: 'deny',
        events: 3,
        flows: 2,
        sources: 2,
      },
    ]);
    expect(configuration.topChangedSourcePrefixes).toEqual([
      { prefix: '198.51.100.0/24', prefixLength: 24, count: 5, flows: 2, addresses: 2 },
      { prefix: '198.51.7.0/24', prefixLength: 24, count: 1, flows: 1, addresses: 1 },
      { prefix: '198.51.0.0/16', prefixLength: 16, count: 6, flows: 3, addresses: 3 },
      { prefix: '2001:db8:1:2::/64', prefixLength: 64, count: 2, flows: 1, addresses: 1 },
      { prefix: '2001:db8:1:3::/64', prefixLength: 64, count: 1, flows: 1, addresses: 1 },
      { prefix: '2001:db8:1::/48', prefixLength: 48, count: 3, flows: 2, addresses: 2 },
    ]);
    expect(configuration.topChangedDestinationPrefixes).toEqual([
      { prefix: '192.0.2.0/24', prefixLength: 24, count: 6, flows: 3, addresses: 1 },
      { prefix: '192.0.0.0/16', prefixLength: 16, count: 6, flows: 3, addresses: 1 },
      { prefix: '2001:db8:ffff::/64', prefixLength: 64, count: 3, flows: 2, addresses: 1 },
      { prefix: '2001:db8:ffff::/48', prefixLength: 48, count: 3, flows: 2, addresses: 1 },
    ]);
    expect(configuration.liveRuleUsage).toEqual({
      livePolicyEtag: configuration.livePolicyEtag,
      rules: [
        { rulePriority: 100, action: 'allow', hits: 13 },
        { rulePriority: 200, action: 'allow', hits: 0 },
        { rulePriority: 300, action: 'deny', hits: 0 },
      ],
      impliedHits: 0,
      unusedRules: [200, 300],
    });
  });
});
