import type { FirewallRule } from '@rollout/contracts';
import { diffPolicyFields, diffRules } from '.';

const rule = (priority: number, extra: Partial<FirewallRule> = {}): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] },
  ...extra,
});

describe('rule diff, matched by priority', () => {
  it('given the same rules in another order, when diffed, then nothing changed', () => {
    const rules = [rule(10), rule(20, { action: 'deny' })];
    expect(diffRules(rules, [...rules].reverse())).toEqual({
      added: [],
      removed: [],
      changed: [],
      unchangedCount: 2,
      rewritten: [],
    });
  });

  it('given a rule only on one side, when diffed, then it is added or removed, by priority', () => {
    const kept = rule(10);
    expect(diffRules([kept, rule(30), rule(5)], [rule(40), kept, rule(20)])).toMatchObject({
      added: [rule(20), rule(40)],
      removed: [rule(5), rule(30)],
      changed: [],
      unchangedCount: 1,
    });
  });

  it('given a rule whose action and sources change, when diffed, then each field is named with before, after and the elements that changed', () => {
    const before = rule(100);
    const after = rule(100, {
      action: 'deny',
      match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: before.match.layer4Configs },
      description: 'office only',
    });
    expect(diffRules([before], [after]).changed).toEqual([
      {
        priority: 100,
        before,
        after,
        fields: [
          { field: 'action', before: 'allow', after: 'deny' },
          { field: 'description', after: 'office only' },
          {
            field: 'match.srcIpRanges',
            before: ['0.0.0.0/0'],
            after: ['10.0.0.0/8'],
            removedElements: ['0.0.0.0/0'],
            addedElements: ['10.0.0.0/8'],
          },
        ],
      },
    ]);
  });

  it('given a field that only moved keys around inside, when diffed, then it is not a change', () => {
    const before = rule(1, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } });
    const after = rule(1, { match: { layer4Configs: [{ ports: ['22'], ipProtocol: 'tcp' }] } });
    expect(diffRules([before], [after]).unchangedCount).toBe(1);
  });
});

describe('rule diff after normalisation', () => {
  const equivalent = (what: string, before: Partial<FirewallRule>, after: Partial<FirewallRule>) =>
    it(`given ${what}, when diffed, then the rule is unchanged (rewritten), never a change to review`, () => {
      const diff = diffRules([rule(7, before)], [rule(7, after)]);
      expect(diff.changed).toEqual([]);
      expect(diff.unchangedCount).toBe(1);
      expect(diff.rewritten).toEqual([
        { priority: 7, before: rule(7, before), after: rule(7, after) },
      ]);
    });

  const l4 = (...layer4Configs: FirewallRule['match']['layer4Configs'] & object) => ({
    match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs },
  });

  equivalent(
    'source ranges reordered and repeated',
    { match: { srcIpRanges: ['10.0.0.0/8', '192.168.0.0/16'] } },
    { match: { srcIpRanges: ['192.168.0.0/16', '10.0.0.0/8', '10.0.0.0/8'] } },
  );
  equivalent(
    'a range split in two halves',
    { match: { destIpRanges: ['10.0.0.0/8'] } },
    { match: { destIpRanges: ['10.0.0.0/9', '10.128.0.0/9'] } },
  );
  equivalent(
    'ports reordered, a single port as a range, overlapping ranges',
    l4({ ipProtocol: 'tcp', ports: ['22', '443', '8000-8080'] }),
    l4({ ipProtocol: 'tcp', ports: ['8000-8050', '443-443', '8040-8080', '22'] }),
  );
  equivalent(
    'a protocol number for its name',
    l4({ ipProtocol: 'tcp', ports: ['22'] }),
    l4({ ipProtocol: '6', ports: ['22'] }),
  );
  equivalent(
    'one protocol split over two configs',
    l4({ ipProtocol: 'udp', ports: ['53', '123'] }),
    l4({ ipProtocol: 'udp', ports: ['123'] }, { ipProtocol: '17', ports: ['53'] }),
  );
  equivalent(
    '`all` beside other protocols',
    l4({ ipProtocol: 'all' }),
    l4({ ipProtocol: 'tcp' }, { ipProtocol: 'all' }),
  );
  equivalent('defaults spelled out', {}, { disabled: false, targetTags: [], description: '' });
  equivalent(
    'target tags reordered',
    { targetTags: ['web', 'db'] },
    { targetTags: ['db', 'web', 'db'] },
  );
  equivalent(
    'no source list and every address listed',
    { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] } },
    {
      match: {
        srcIpRanges: ['::/0', '0.0.0.0/0'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }],
      },
    },
  );

  it('given a port replaced, when diffed, then the change lists that port out and the new one in, by protocol', () => {
    const before = rule(1, l4({ ipProtocol: 'tcp', ports: ['443', '22'] }));
    const after = rule(1, l4({ ipProtocol: '6', ports: ['2222', '443'] }));
    expect(diffRules([before], [after]).changed[0].fields).toEqual([
      {
        field: 'match.layer4Configs',
        before: before.match.layer4Configs,
        after: after.match.layer4Configs,
        removedElements: ['tcp/22'],
        addedElements: ['tcp/2222'],
      },
    ]);
  });

  it('given a rule disabled, when diffed, then `disabled` is the one change', () => {
    const diff = diffRules([rule(1, { disabled: false })], [rule(1, { disabled: true })]);
    expect(diff.changed[0].fields).toEqual([{ field: 'disabled', before: false, after: true }]);
  });

  it('given every address of one family only, when diffed against no list, then the other family is the change', () => {
    const diff = diffRules(
      [rule(1, { match: {} })],
      [rule(1, { match: { srcIpRanges: ['0.0.0.0/0'] } })],
    );
    expect(diff.changed[0].fields).toEqual([
      {
        field: 'match.srcIpRanges',
        after: ['0.0.0.0/0'],
        removedElements: ['::/0'],
        addedElements: [],
      },
    ]);
  });
});

describe('policy fields diff: the whole resource', () => {
  it('given a display name and a description only on the live side, when diffed, then both are removed', () => {
    expect(
      diffPolicyFields(
        { displayName: 'Edge', description: 'Internet edge', rules: [] },
        { rules: [] },
      ),
    ).toEqual([
      { field: 'description', before: 'Internet edge' },
      { field: 'displayName', before: 'Edge' },
    ]);
  });

  it('given a field the model does not know yet, when diffed, then it is compared like the others', () => {
    const later = { rules: [], labels: ['pci', 'edge'] } as never;
    const now = { rules: [], labels: ['edge'] } as never;
    expect(diffPolicyFields(later, now)).toEqual([
      {
        field: 'labels',
        before: ['pci', 'edge'],
        after: ['edge'],
        removedElements: ['pci'],
        addedElements: [],
      },
    ]);
  });

  it('given an empty description against none, when diffed, then nothing differs', () => {
    expect(diffPolicyFields({ description: '', rules: [] }, { rules: [rule(1)] })).toEqual([]);
  });
});
