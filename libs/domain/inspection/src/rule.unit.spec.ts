import { RuleDefinition, publicRule } from './rule';

describe('rules as read', () => {
  const stored: RuleDefinition = {
    uuid: '7d7b2c0e-0000-4000-8000-000000000001',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    priority: 1,
    description: 'bmc',
    scope: null,
    sensitive: true,
    phase: 'main',
    conditions: [{ op: 'is-true', args: ['{node.auto_discovered}'] }],
    actions: [{ op: 'set-attribute', args: ['/driver_info/ipmi_password', 'x'] }],
    built_in: false,
  };

  it("never returns a sensitive rule's conditions and actions, and a summary leaves them out", () => {
    expect(publicRule(stored)).toMatchObject({ conditions: null, actions: null });
    expect(publicRule(stored, false)).not.toHaveProperty('conditions');
    expect(publicRule({ ...stored, sensitive: false }).actions).toEqual(stored.actions);
  });
});
