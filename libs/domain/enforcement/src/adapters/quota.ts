import { reservationSize } from '../filters';
import { EnforcementContext, LeaseRequest, Reservation } from '../model';
import {
  AdapterContext,
  AdapterLease,
  AdapterReservation,
  QuotaRequest,
  QuotaResult,
} from './wire';

const HOUR_MS = 3_600_000;

/** How many units a reservation holds: its measured size, else amount, max or min, else 1. */
export function reservationUnits(r: Reservation): number {
  return reservationSize(r) ?? r.amount ?? r.max ?? r.min ?? 1;
}

/** Rounded up to whole hours per type: a 30-minute lease of one host costs one host-hour. */
export function resourceHours(lease: LeaseRequest): Record<string, number> {
  const ms = Math.max(0, lease.endDate.getTime() - lease.startDate.getTime());
  const unitMs: Record<string, number> = {};
  for (const r of lease.reservations)
    unitMs[r.resourceType] = (unitMs[r.resourceType] ?? 0) + reservationUnits(r) * ms;
  return Object.fromEntries(
    Object.entries(unitMs).map(([type, total]) => [type, Math.ceil(total / HOUR_MS)]),
  );
}

/** On update, only the growth per type: shrinking is returned through a report once committed. */
export function quotaAmounts(lease: LeaseRequest, current?: LeaseRequest): Record<string, number> {
  const next = resourceHours(lease);
  const before = current ? resourceHours(current) : {};
  const out: Record<string, number> = {};
  for (const [type, hours] of Object.entries(next)) {
    const more = hours - (before[type] ?? 0);
    if (more > 0) out[type] = more;
  }
  return out;
}

export function quotaRequest(
  amounts: Record<string, number>,
  dedupId: string,
  bestEffort = false,
): QuotaRequest {
  return {
    quotas: Object.fromEntries(
      Object.entries(amounts).map(([type, amount]) => [type, { amount, bestEffort }]),
    ),
    dedupId,
  };
}

export interface GrantOutcome {
  denial?: string;
  granted: Record<string, number>;
}

/** A type granted less than asked (and not best effort) refuses the lease; a type missing from the answer counts as 0. */
export function grantOutcome(
  adapter: string,
  request: QuotaRequest,
  result: QuotaResult,
): GrantOutcome {
  const granted: Record<string, number> = {};
  const short: string[] = [];
  for (const [type, asked] of Object.entries(request.quotas)) {
    const raw = result.quotas?.[type]?.grantedAmount;
    const amount = typeof raw === 'number' && Number.isFinite(raw) && raw > 0 ? raw : 0;
    if (amount > 0) granted[type] = amount;
    if (amount < asked.amount && !asked.bestEffort)
      short.push(`${asked.amount} ${type} resource-hours asked, ${amount} granted`);
  }
  if (!short.length) return { granted };
  const reason = result.status?.message?.trim();
  return {
    granted,
    denial: `Quota from adapter ${adapter} refused: ${short.join('; ')}${reason ? ` (${reason})` : ''}.`,
  };
}

export function toAdapterContext(context: EnforcementContext): AdapterContext {
  return {
    userId: context.userId,
    projectId: context.projectId,
    regionName: context.regionName,
    requestId: context.requestId,
  };
}

export function toAdapterLease(lease: LeaseRequest, id: string, apiId?: string): AdapterLease {
  const out: AdapterLease = {
    id,
    ...(apiId ? { apiId } : {}),
    name: lease.name,
    startDate: lease.startDate.toISOString(),
    endDate: lease.endDate.toISOString(),
    reservations: lease.reservations.map((r) => {
      const w: AdapterReservation = { resourceType: r.resourceType };
      if (r.min !== undefined) w.min = r.min;
      if (r.max !== undefined) w.max = r.max;
      if (r.amount !== undefined) w.amount = r.amount;
      return w;
    }),
  };
  return out;
}

/** Never before the lease's start (a lease that never started returns everything) nor after its end. */
export function endedAt(lease: LeaseRequest, now: Date): Date {
  const t = Math.min(Math.max(now.getTime(), lease.startDate.getTime()), lease.endDate.getTime());
  return new Date(t);
}
