import { RuleDefinition } from './rule';
import { pageRules } from './listing';

function rule(uuid: string, priority: number, description: string | null): RuleDefinition {
  return {
    uuid,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    priority,
    description,
    scope: null,
    sensitive: false,
    phase: 'main',
    conditions: [],
    actions: [{ op: 'log', args: ['x'] }],
    built_in: false,
  };
}

const RULES = [rule('a', 5, 'b'), rule('b', 1, null), rule('c', 5, 'a'), rule('d', 9, 'c')];
const uuids = (rules: RuleDefinition[]) => rules.map((r) => r.uuid);

describe('pageRules (Ironic paging)', () => {
  it('sorts by id (the given creation order) or by a field, ties in creation order, nulls first', () => {
    expect(uuids(pageRules(RULES, {}))).toEqual(['a', 'b', 'c', 'd']);
    expect(uuids(pageRules(RULES, { sort_dir: 'desc' }))).toEqual(['d', 'c', 'b', 'a']);
    expect(uuids(pageRules(RULES, { sort_key: 'priority' }))).toEqual(['b', 'a', 'c', 'd']);
    expect(uuids(pageRules(RULES, { sort_key: 'description' }))).toEqual(['b', 'c', 'a', 'd']);
  });

  it('starts after the marker and stops at the limit', () => {
    expect(uuids(pageRules(RULES, { sort_key: 'priority', marker: 'a', limit: 1 }))).toEqual(['c']);
    expect(uuids(pageRules(RULES, { marker: 'D' }))).toEqual([]);
  });

  it("refuses what Ironic refuses, in Ironic's words", () => {
    expect(() => pageRules(RULES, { marker: 'zz' })).toThrow('Rule zz could not be found.');
    expect(() => pageRules(RULES, { limit: 0 })).toThrow('Limit must be positive');
    expect(() => pageRules(RULES, { sort_key: 'actions' as never })).toThrow(
      'The sort_key value actions is an invalid field for sorting',
    );
    expect(() => pageRules(RULES, { sort_dir: 'up' as never })).toThrow(
      "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'",
    );
  });
});
