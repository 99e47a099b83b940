import type { FirewallRule } from '@rollout/contracts';
import { diffPolicies, hasChanges } from './diff';
import { normalisePolicy } from './policy-file';

const ssh: FirewallRule = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: {
    srcIpRanges: ['0.0.0.0/0'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
  },
};
const dns: FirewallRule = {
  priority: 300,
  direction: 'INGRESS',
  action: 'allow',
  match: { layer4Configs: [{ ipProtocol: 'udp', ports: ['53'] }] },
};

describe('the whole-resource diff', () => {
  it('is empty for the same policy written another way', () => {
    const other = normalisePolicy({
      displayName: 'edge',
      rules: [
        {
          ...ssh,
          match: {
            srcIpRanges: ['0.0.0.0/0'],
            layer4Configs: [{ ipProtocol: '6', ports: ['443', '22'] }],
          },
          disabled: false,
        },
      ],
    });
    const diff = diffPolicies(normalisePolicy({ displayName: 'edge', rules: [ssh] }), other);
    expect(hasChanges(diff)).toBe(false);
    expect(diff.unchangedRules).toBe(1);
  });

  it('names policy fields, rules added and removed whole, and changed rules element by element inside lists', () => {
    const before = normalisePolicy({ displayName: 'edge', rules: [ssh, dns] });
    const after = normalisePolicy({
      displayName: 'edge v2',
      description: 'tightened',
      rules: [
        {
          ...ssh,
          targetTags: ['web'],
          match: {
            srcIpRanges: ['10.0.0.0/8', '0.0.0.0/0'],
            layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }, { ipProtocol: 'icmp' }],
          },
        },
        {
          priority: 200,
          direction: 'INGRESS',
          action: 'deny',
          match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
        },
      ],
    });
    const diff = diffPolicies(before, after);
    expect(diff.fields).toEqual([
      { field: 'displayName', kind: 'changed', before: 'edge', after: 'edge v2' },
      { field: 'description', kind: 'added', after: 'tightened' },
    ]);
    expect(diff.rules.map((r) => [r.priority, r.kind])).toEqual([
      [100, 'changed'],
      [200, 'added'],
      [300, 'removed'],
    ]);
    const changed = diff.rules[0];
    expect(changed.fields.map((f) => [f.field, f.kind, f.elements])).toEqual([
      ['targetTags', 'added', [{ kind: 'added', element: 'web' }]],
      ['match.srcIpRanges', 'changed', [{ kind: 'added', element: '10.0.0.0/8' }]],
      [
        'match.layer4Configs',
        'changed',
        [
          { kind: 'added', element: 'icmp', portsAdded: ['all'] },
          { kind: 'changed', element: 'tcp', portsAdded: [], portsRemoved: ['22'] },
        ],
      ],
    ]);
    expect(diff.rules[1].fields.map((f) => f.field)).toEqual([
      'direction',
      'action',
      'match.layer4Configs',
    ]);
    expect(diff.summary).toEqual({
      rulesAdded: 1,
      rulesChanged: 1,
      rulesRemoved: 1,
      policyFieldsChanged: 2,
    });
    expect(diff.unchangedRules).toBe(0);
  });

  it('diffs source secure tags by name, element by element', () => {
    const tagged = (names: string[]) =>
      normalisePolicy({
        rules: [
          { ...ssh, match: { ...ssh.match, srcSecureTags: names.map((name) => ({ name })) } },
        ],
      });
    const diff = diffPolicies(
      tagged(['k8s:app=web', 'tagValues/1']),
      tagged(['tagValues/1', 'tagValues/2']),
    );
    expect(diff.rules[0].fields.map((f) => [f.field, f.kind, f.elements])).toEqual([
      [
        'match.srcSecureTags',
        'changed',
        [
          { kind: 'removed', element: 'k8s:app=web' },
          { kind: 'added', element: 'tagValues/2' },
        ],
      ],
    ]);
  });
});
