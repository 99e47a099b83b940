import { canonicalJson } from '@rollout/contracts';
import { LeaseRequest } from './model';

/**
 * Whether an update must pass the chain. Blazar's `update_lease` runs no filter when the update
 * sends nothing or only a new name; this goes one step further on purpose: any update that leaves
 * the start, the end and the reservations (plugin attributes and allocations included) as they
 * were runs no filter, since those are what the filters decide on. Dates compare by instant, so
 * `2026-11-22 10:00` and `2026-11-22T10:00:00Z` are the same.
 */
export function updateNeedsChecks(current: LeaseRequest, next: LeaseRequest): boolean {
  return (
    current.startDate.getTime() !== next.startDate.getTime() ||
    current.endDate.getTime() !== next.endDate.getTime() ||
    canonicalJson(current.reservations) !== canonicalJson(next.reservations)
  );
}
