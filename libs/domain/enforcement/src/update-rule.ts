import { canonicalJson } from '@rollout/contracts';
import { LeaseRequest } from './model';

/**
 * Blazar skips filters only for an empty or rename-only update; this skips any update leaving
 * dates (by instant) and reservations as they were, since those are all the filters decide on.
 */
export function updateNeedsChecks(current: LeaseRequest, next: LeaseRequest): boolean {
  return (
    current.startDate.getTime() !== next.startDate.getTime() ||
    current.endDate.getTime() !== next.endDate.getTime() ||
    canonicalJson(current.reservations) !== canonicalJson(next.reservations)
  );
}
