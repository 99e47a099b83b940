import type { AdapterReservation } from '@rollout/contracts';
import { budgetOf, type BudgetConfig } from './budget-config';

const HOUR_MS = 3_600_000;

export interface LeaseTimes {
  startDate: Date;
  endDate: Date;
  reservations: readonly AdapterReservation[];
}

/** Hosts up to `max` (or exactly `min`); other types their `amount` (else `max`, `min`); 1 when none is set. */
export function reservationUnits(r: AdapterReservation): number {
  const size =
    r.resourceType === 'physical:host'
      ? (r.max ?? r.min ?? r.amount)
      : (r.amount ?? r.max ?? r.min);
  return typeof size === 'number' && Number.isFinite(size) ? Math.max(0, size) : 1;
}

/** Rounded up to whole hours per type, as the enforcement-service counts what it asks for. */
export function resourceHours(
  lease: LeaseTimes,
  until: Date = lease.endDate,
): Record<string, number> {
  const end = Math.min(until.getTime(), lease.endDate.getTime());
  const ms = Math.max(0, end - lease.startDate.getTime());
  const unitMs: Record<string, number> = {};
  for (const r of lease.reservations)
    unitMs[r.resourceType] = (unitMs[r.resourceType] ?? 0) + reservationUnits(r) * ms;
  return Object.fromEntries(
    Object.entries(unitMs).map(([type, total]) => [type, Math.ceil(total / HOUR_MS)]),
  );
}

/** Best effort grants whatever is left; otherwise all of it or nothing. A type without a budget is not limited. */
export function grantAmount(
  asked: { amount: number; bestEffort: boolean },
  budget: number | undefined,
  spent: number,
): number {
  if (budget === undefined) return asked.amount;
  const left = Math.max(0, budget - spent);
  if (asked.bestEffort) return Math.min(asked.amount, left);
  return left >= asked.amount ? asked.amount : 0;
}

/** What it used, rounded up, never more than charged. */
export function chargeAfterEnd(charged: number, used: number): number {
  return Math.max(0, Math.min(charged, used));
}

export function overBudget(
  config: BudgetConfig,
  project: string,
  resourceTypes: readonly string[],
  spent: (resourceType: string) => number,
): { resourceType: string; message: string } | undefined {
  for (const resourceType of [...new Set(resourceTypes)].sort()) {
    const budget = budgetOf(config, project, resourceType);
    if (budget === undefined) continue;
    if (budget - spent(resourceType) <= 0) {
      return {
        resourceType,
        message: `Project ${project} has used its budget of ${formatHours(budget)} ${resourceType} hours.`,
      };
    }
  }
  return undefined;
}

export function formatHours(hours: number): string {
  return Number.isInteger(hours) ? String(hours) : hours.toFixed(2).replace(/\.?0+$/, '');
}

export function shortMessage(
  project: string,
  shortTypes: { resourceType: string; left: number; budget: number }[],
): string {
  return shortTypes
    .map(
      (s) =>
        `Project ${project} has ${formatHours(s.left)} of its ${formatHours(s.budget)} ${s.resourceType} hours left.`,
    )
    .join(' ');
}
