import { STORED_SENSITIVE_RULE } from '../test/rule-factory';
import { publicRule } from './rule';

describe('rules as read', () => {
  const stored = STORED_SENSITIVE_RULE;

  it("never returns a sensitive rule's conditions and actions, and a summary leaves them out", () => {
    expect(publicRule(stored)).toMatchObject({ conditions: null, actions: null });
    expect(publicRule(stored, false)).not.toHaveProperty('conditions');
    expect(publicRule({ ...stored, sensitive: false }).actions).toEqual(stored.actions);
  });
});
