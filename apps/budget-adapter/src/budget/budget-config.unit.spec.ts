import { budgetOf, configKey, parseBudgetConfig } from './budget-config';

describe('budget config', () => {
  it('accepts per-project budgets with a default, and names every bad field', () => {
    const good = parseBudgetConfig({
      budgets: { acme: { 'physical:host': 100 } },
      default: { 'physical:host': 10 },
    });
    expect(good.ok).toBe(true);
    const bad = parseBudgetConfig({
      budgets: { acme: { 'physical:host': -1 }, beta: 'x' },
      default: { 'virtual:instance': '5' },
      limit: 3,
    });
    expect(bad).toEqual({
      ok: false,
      violations: [
        {
          field: 'adapterConfig.limit',
          description: 'unknown setting (expected one of: budgets, default)',
        },
        {
          field: 'adapterConfig.budgets.acme.physical:host',
          description: 'must be a number of resource-hours ≥ 0',
        },
        {
          field: 'adapterConfig.budgets.beta',
          description: 'must be an object of resource type → resource-hours',
        },
        {
          field: 'adapterConfig.default.virtual:instance',
          description: 'must be a number of resource-hours ≥ 0',
        },
      ],
    });
    expect(parseBudgetConfig([1]).ok).toBe(false);
  });

  it('takes a project budget, else the default, else no limit', () => {
    const parsed = parseBudgetConfig({
      budgets: { acme: { 'physical:host': 100 } },
      default: { 'physical:host': 10, 'virtual:instance': 5 },
    });
    if (!parsed.ok) throw new Error('valid config refused');
    expect(budgetOf(parsed.config, 'acme', 'physical:host')).toBe(100);
    expect(budgetOf(parsed.config, 'acme', 'virtual:instance')).toBe(5);
    expect(budgetOf(parsed.config, 'other', 'physical:host')).toBe(10);
    expect(budgetOf(parsed.config, 'other', 'network')).toBeUndefined();
  });

  it('keys sessions by canonical JSON: key order does not matter, values do', () => {
    expect(configKey({ default: { a: 1, b: 2 }, budgets: {} })).toBe(
      configKey({ budgets: {}, default: { b: 2, a: 1 } }),
    );
    expect(configKey({ default: { a: 1 } })).not.toBe(configKey({ default: { a: 2 } }));
  });
});
