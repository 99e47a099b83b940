import type { FirewallRule } from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import { coverageOf, liveRuleUsageOf } from './coverage';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  srcIpRanges: string[],
  ports: string[],
  disabled = false,
): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges, layer4Configs: [{ ipProtocol: 'tcp', ports }] },
  ...(disabled ? { disabled } : {}),
});
const live = [rule(100, 'allow', ['10.0.0.0/8'], ['22'])];
const experiment = [
  rule(10, 'deny', ['10.0.1.0/24'], ['22']),
  rule(20, 'allow', ['192.168.0.0/16'], ['80']),
  rule(40, 'deny', ['172.16.0.0/12'], ['22'], true),
  ...live,
];
const analysis = analyzeExperiment({ rules: live }, { rules: experiment }, 'L1');
const counts = (priorities: number[]) =>
  priorities.map((p) => ({ rulePriority: p, implied: false, action: 'allow' as const, count: 1 }));

describe('coverageOf', () => {
  it('keeps the regions no flow lies in, and names the enabled rules that decided nothing', () => {
    const coverage = coverageOf({
      analysis,
      experimentRules: experiment,
      flows: [
        {
          direction: 'INGRESS',
          srcIp: '10.0.1.7',
          destIp: '192.0.2.1',
          protocol: 'tcp',
          destPort: 22,
          count: 5,
        },
      ],
      changedOutsideFlows: 0,
      experimentRuleCounts: counts([10, 100]),
    });
    expect(coverage.differingRegions).toBe(2);
    expect(coverage.untouchedRegions.map((r) => r.srcIpRanges)).toEqual([['192.168.0.0/16']]);
    expect(coverage).toMatchObject({
      exact: true,
      unmatchedExperimentRules: [20],
      shadowedRules: [],
    });
  });

  it('is not exact when changed events outside the kept flows may have touched a region', () => {
    const coverage = coverageOf({
      analysis,
      experimentRules: experiment,
      flows: [],
      changedOutsideFlows: 3,
      experimentRuleCounts: counts([100]),
    });
    expect(coverage.untouchedRegions).toHaveLength(2);
    expect(coverage.exact).toBe(false);
    expect(coverage.unmatchedExperimentRules).toEqual([10, 20]);
  });
});

describe('changedByRegion', () => {
  const flow = (srcIp: string, destPort: number, count: number) => ({
    direction: 'INGRESS' as const,
    srcIp,
    destIp: '192.0.2.1',
    protocol: 'tcp',
    destPort,
    count,
  });

  it("gives each of the diff's sentences the events, flows and distinct sources of the changed traffic in its region", () => {
    const coverage = coverageOf({
      analysis,
      experimentRules: experiment,
      flows: [
        flow('10.0.1.7', 22, 5),
        flow('10.0.1.7', 22, 2),
        // The same source spelt as an IPv4-mapped IPv6 address counts once.
        flow('::ffff:10.0.1.7', 22, 1),
        flow('10.0.1.8', 22, 4),
        flow('192.168.3.4', 80, 9),
        // In no region: another port.
        flow('10.0.1.9', 443, 100),
      ],
      changedOutsideFlows: 0,
      experimentRuleCounts: counts([10, 20, 100]),
    });
    expect(coverage.changedByRegion).toEqual([
      {
        summary: 'tcp/22 from 10.0.1.0/24 is now denied',
        action: 'deny',
        events: 12,
        flows: 4,
        sources: 2,
      },
      {
        summary: 'tcp/80 from 192.168.0.0/16 is now allowed',
        action: 'allow',
        events: 9,
        flows: 1,
        sources: 1,
      },
    ]);
    expect(coverage.untouchedRegions).toEqual([]);
  });

  it('counts nothing in a region no flow touched, and lists it as untouched', () => {
    const coverage = coverageOf({
      analysis,
      experimentRules: experiment,
      flows: [flow('192.168.3.4', 80, 9)],
      changedOutsideFlows: 0,
      experimentRuleCounts: counts([20, 100]),
    });
    expect(coverage.changedByRegion?.map((r) => [r.events, r.flows, r.sources])).toEqual([
      [0, 0, 0],
      [9, 1, 1],
    ]);
    expect(coverage.untouchedRegions.map((r) => r.srcIpRanges)).toEqual([['10.0.1.0/24']]);
  });
});

describe('liveRuleUsageOf', () => {
  const rules = [
    rule(300, 'allow', ['0.0.0.0/0'], ['443']),
    rule(100, 'allow', ['10.0.0.0/8'], ['22']),
    rule(200, 'deny', ['0.0.0.0/0'], ['23']),
    rule(250, 'deny', ['0.0.0.0/0'], ['25'], true),
  ];

  it('gives every live rule its hits and names the enabled rules that matched nothing as unused', () => {
    expect(
      liveRuleUsageOf({
        livePolicyEtag: 'L1',
        liveRules: rules,
        liveRuleCounts: [
          { rulePriority: 300, implied: false, action: 'allow', count: 40 },
          { rulePriority: 100, implied: false, action: 'allow', count: 7 },
          { rulePriority: null, implied: true, action: 'deny', count: 3 },
        ],
      }),
    ).toEqual({
      livePolicyEtag: 'L1',
      rules: [
        { rulePriority: 100, action: 'allow', hits: 7 },
        { rulePriority: 200, action: 'deny', hits: 0 },
        { rulePriority: 250, action: 'deny', hits: 0, disabled: true },
        { rulePriority: 300, action: 'allow', hits: 40 },
      ],
      impliedHits: 3,
      unusedRules: [200],
    });
  });

  it('calls every enabled rule unused when nothing was evaluated', () => {
    expect(
      liveRuleUsageOf({ livePolicyEtag: 'L1', liveRules: rules, liveRuleCounts: [] }).unusedRules,
    ).toEqual([100, 200, 300]);
  });
});
