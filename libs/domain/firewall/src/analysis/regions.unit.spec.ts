import type { FirewallRule, FlowConnection } from '@rollout/contracts';
import { analyzeExperiment } from './analyze';
import { regionMatcher, regionTraffic } from './regions';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
  direction: 'INGRESS' | 'EGRESS' = 'INGRESS',
): FirewallRule => ({ priority, action, direction, match });

/** Live rules of both directions, several protocols and both families; the experiment drops them all. */
const live: FirewallRule[] = [
  rule(10, 'allow', {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '8000-8080'] }],
  }),
  rule(20, 'allow', {
    srcIpRanges: ['10.1.0.0/16'],
    layer4Configs: [{ ipProtocol: 'udp', ports: ['53'] }],
  }),
  rule(30, 'allow', { srcIpRanges: ['172.16.0.0/12'], layer4Configs: [{ ipProtocol: 'all' }] }),
  rule(
    40,
    'deny',
    { destIpRanges: ['192.168.0.0/16'], layer4Configs: [{ ipProtocol: 'icmp' }] },
    'EGRESS',
  ),
  rule(50, 'allow', {
    srcIpRanges: ['2001:db8::/32'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }],
  }),
];

/** Every combination of direction, source, destination, protocol and port, each with its own count. */
function everyFlow(): (FlowConnection<string> & { count: number })[] {
  const flows: (FlowConnection<string> & { count: number })[] = [];
  for (const direction of ['INGRESS', 'EGRESS'] as const)
    for (const srcIp of [
      '10.0.3.4',
      '10.1.2.3',
      '172.20.1.1',
      '192.168.7.7',
      '2001:db8::5',
      '8.8.8.8',
    ])
      for (const destIp of srcIp.includes(':') ? ['2001:db8::1'] : ['192.168.1.1', '10.9.9.9'])
        for (const protocol of ['tcp', 'udp', 'icmp', 'sctp'])
          for (const destPort of protocol === 'icmp' ? [undefined] : [22, 53, 443, 8042, 9000])
            flows.push({
              direction,
              srcIp,
              destIp,
              protocol,
              ...(destPort === undefined ? {} : { destPort }),
              count: 1 + (flows.length % 5),
            });
  return flows;
}

describe('regionTraffic', () => {
  it('given a change opening regions of every direction and protocol, when flows are tallied, then each region counts what its matcher matches', () => {
    const { differingRegions } = analyzeExperiment({ rules: live }, { rules: [] }, 'live-1');
    const flows = everyFlow();
    const expected = differingRegions.map((region) => {
      const matches = regionMatcher(region);
      const inside = flows.filter((flow) => matches(flow));
      return {
        events: inside.reduce((sum, flow) => sum + flow.count, 0),
        flows: inside.length,
        sources: new Set(inside.map((flow) => flow.srcIp)).size,
      };
    });

    expect(differingRegions.map((region) => region.direction)).toContain('EGRESS');
    expect(expected.every((tally) => tally.flows > 0)).toBe(true);
    expect(regionTraffic(differingRegions, flows)).toEqual(expected);
  });
});
