import type { FirewallRule } from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import { coverageOf } from './coverage';

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
