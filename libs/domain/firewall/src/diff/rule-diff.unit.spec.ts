import type { FirewallRule } from '@rollout/contracts';
import { diffRules } from '.';

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
    });
  });

  it('given a rule only on one side, when diffed, then it is added or removed, by priority', () => {
    const kept = rule(10);
    expect(diffRules([kept, rule(30), rule(5)], [rule(40), kept, rule(20)])).toEqual({
      added: [rule(20), rule(40)],
      removed: [rule(5), rule(30)],
      changed: [],
      unchangedCount: 1,
    });
  });

  it('given a rule whose action and sources change, when diffed, then each field is named with before and after', () => {
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
          { field: 'match.srcIpRanges', before: ['0.0.0.0/0'], after: ['10.0.0.0/8'] },
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
