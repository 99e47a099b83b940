import type { DifferingRegion } from '@rollout/contracts';
import { describeRegion, describeRule, formatFieldValue, regionOpens } from './rule-words';

describe('rules and regions in words', () => {
  it('says what a rule matches', () => {
    expect(
      describeRule({
        priority: 900,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
        },
        targetTags: ['web'],
      }),
    ).toBe('INGRESS deny tcp/22 from 0.0.0.0/0 to anywhere, on instances tagged web');
    expect(formatFieldValue(['22', '443'])).toBe('22, 443');
    expect(formatFieldValue(undefined)).toBe('(none)');
    expect(formatFieldValue({ a: 1 })).toBe('{"a":1}');
  });

  it('says what a region’s change does', () => {
    const region: DifferingRegion = {
      direction: 'INGRESS',
      srcIpRanges: ['0.0.0.0/0'],
      destIpRanges: [],
      layer4Configs: [{ ipProtocols: ['tcp'], ports: ['22'] }],
      liveVerdict: { action: 'allow', rulePriority: 1000, implied: false },
      experimentVerdict: { action: 'deny', rulePriority: 900, implied: false },
    };
    expect(describeRegion(region)).toBe(
      'INGRESS tcp/22 from 0.0.0.0/0 to anywhere: allow (rule 1000) becomes deny (rule 900)',
    );
    expect(regionOpens(region)).toBe(false);
  });
});
