import type { DifferingRegion } from '@rollout/contracts';
import {
  describeRegion,
  describeRule,
  diffCountsText,
  formatFieldValue,
  regionOpens,
} from './rule-words';

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
    expect(
      describeRule({
        priority: 800,
        direction: 'INGRESS',
        action: 'allow',
        match: {
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['5432'] }],
          srcSecureTags: [{ name: 'k8s:app=api' }, { name: 'tagValues/1' }],
        },
      }),
    ).toBe(
      'INGRESS allow tcp/5432 from anywhere to anywhere with source tag k8s:app=api or tagValues/1',
    );
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
    expect(
      describeRegion({
        ...region,
        srcSecureTags: { anyTagOf: [['k8s:app=api']], tagsAbsent: ['k8s:app=web'] },
      }),
    ).toBe(
      'INGRESS tcp/22 from 0.0.0.0/0 to anywhere with source tags k8s:app=api and none of k8s:app=web: allow (rule 1000) becomes deny (rule 900)',
    );
  });

  it('counts a diff in words, naming policy fields and rewritten rules only when there are some', () => {
    const rule = {
      priority: 100,
      direction: 'INGRESS' as const,
      action: 'allow' as const,
      match: { srcIpRanges: ['10.0.0.0/8'] },
    };
    const diff = {
      from: { etag: 'P1', label: 'live policy (revision 1)' },
      to: { etag: 'E1', label: 'experiment e' },
      added: [],
      removed: [],
      changed: [],
      unchangedCount: 2,
      semantic: { nowDenied: [], nowAllowed: [], truncated: false },
    };
    expect(diffCountsText(diff)).toBe('0 rules added, 0 removed, 0 changed, 2 unchanged');
    expect(
      diffCountsText({
        ...diff,
        added: [{ ...rule, priority: 50 }],
        policyFields: [{ field: 'description', before: 'a' }],
        rewritten: [{ priority: 100, before: rule, after: rule }],
      }),
    ).toBe(
      '1 policy field changed, 1 rule added, 0 removed, 0 changed, 2 unchanged (1 only rewritten)',
    );
  });
});
