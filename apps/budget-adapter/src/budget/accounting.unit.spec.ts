import {
  chargeAfterEnd,
  grantAmount,
  overBudget,
  reservationUnits,
  resourceHours,
} from './accounting';
import { parseBudgetConfig } from './budget-config';

const lease = (
  hours: number,
  reservations: { resourceType: string; min?: number; max?: number; amount?: number }[],
) => ({
  startDate: new Date('2026-12-01T00:00:00Z'),
  endDate: new Date(Date.parse('2026-12-01T00:00:00Z') + hours * 3_600_000),
  reservations,
});

describe('accounting', () => {
  it('counts hosts by max (else min) and other types by amount, in whole hours per type', () => {
    expect(reservationUnits({ resourceType: 'physical:host', min: 1, max: 3 })).toBe(3);
    expect(reservationUnits({ resourceType: 'physical:host', min: 2 })).toBe(2);
    expect(reservationUnits({ resourceType: 'virtual:instance', amount: 4 })).toBe(4);
    expect(reservationUnits({ resourceType: 'network' })).toBe(1);
    const l = lease(2.5, [
      { resourceType: 'physical:host', min: 1, max: 2 },
      { resourceType: 'physical:host', min: 1, max: 1 },
      { resourceType: 'virtual:instance', amount: 3 },
    ]);
    expect(resourceHours(l)).toEqual({ 'physical:host': 8, 'virtual:instance': 8 });
    expect(resourceHours(l, new Date('2026-12-01T01:00:00Z'))).toEqual({
      'physical:host': 3,
      'virtual:instance': 3,
    });
    expect(resourceHours(l, new Date('2026-11-30T00:00:00Z'))).toEqual({
      'physical:host': 0,
      'virtual:instance': 0,
    });
  });

  it('grants best effort whatever is left, otherwise all or nothing; no budget, no limit', () => {
    expect(grantAmount({ amount: 10, bestEffort: true }, 100, 95)).toBe(5);
    expect(grantAmount({ amount: 10, bestEffort: true }, 100, 120)).toBe(0);
    expect(grantAmount({ amount: 10, bestEffort: false }, 100, 95)).toBe(0);
    expect(grantAmount({ amount: 10, bestEffort: false }, 100, 90)).toBe(10);
    expect(grantAmount({ amount: 10, bestEffort: false }, undefined, 1e9)).toBe(10);
  });

  it('keeps what an ended lease used, never more than it was charged', () => {
    expect(chargeAfterEnd(48, 12)).toBe(12);
    expect(chargeAfterEnd(48, 0)).toBe(0);
    expect(chargeAfterEnd(10, 48)).toBe(10);
  });

  it('denies a project whose budget of a reserved type is spent, saying which', () => {
    const parsed = parseBudgetConfig({ budgets: { acme: { 'physical:host': 100 } } });
    if (!parsed.ok) throw new Error('valid config refused');
    const spent = (type: string) => (type === 'physical:host' ? 100 : 0);
    expect(overBudget(parsed.config, 'acme', ['virtual:instance', 'physical:host'], spent)).toEqual(
      {
        resourceType: 'physical:host',
        message: 'Project acme has used its budget of 100 physical:host hours.',
      },
    );
    expect(overBudget(parsed.config, 'acme', ['physical:host'], () => 99.5)).toBeUndefined();
    expect(overBudget(parsed.config, 'other', ['physical:host'], spent)).toBeUndefined();
  });
});
