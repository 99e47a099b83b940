import type { LeaseStatus } from '@rollout/contracts';
import {
  ChainDecision,
  EnforcementContext,
  LeaseRequest,
  adapterLeaseId,
  decisionRecord,
  endingOf,
  isLiveStatus,
  isLookupId,
  leaseNotFound,
} from '@rollout/domain/enforcement';
import type { LedgerTx } from '../ledger/ledger.repository';
import type { LeaseRow, NewDecision } from '../ledger/ledger-statements';

export type LeaseIds = Pick<EnforcementContext, 'leaseId' | 'apiLeaseId'>;

export const isLive = (row: LeaseRow) => isLiveStatus(row.status);

/** The ids filters get for a lease of the ledger: the adapters' key, and the id users see in the API. */
export function idsOf(row: LeaseRow): LeaseIds {
  return {
    leaseId: adapterLeaseId({
      origin: row.origin,
      uid: row.uid,
      blazarName: row.blazar_name,
      blazarId: row.blazar_id,
    }),
    apiLeaseId: row.lease_id,
  };
}

/** The filters' context of a request in this service's region. */
export function leaseContext(
  regionName: string,
  project: string,
  userId: string,
  requestId: string,
  ids: LeaseIds = {},
): EnforcementContext {
  return { userId, projectId: project, regionName, requestId, ...ids };
}

export function decisionOf(
  uid: string,
  project: string,
  leaseId: string,
  decision: ChainDecision,
  now: Date,
  actor: string,
  context: EnforcementContext,
): NewDecision {
  return {
    leaseUid: uid,
    project,
    leaseId,
    ...decisionRecord(decision),
    time: now,
    actor,
    userId: context.userId,
    requestId: context.requestId,
  };
}

/** A new row of the ledger for `lease`, created now. */
export function newRow(
  row: Pick<LeaseRow, 'uid' | 'project' | 'lease_id' | 'origin' | 'creator' | 'region_name'>,
  lease: LeaseRequest,
  status: LeaseStatus,
  reason: string | null,
  now: Date,
): LeaseRow {
  return {
    ...row,
    blazar_name: null,
    blazar_id: null,
    name: lease.name,
    start_date: lease.startDate,
    end_date: lease.endDate,
    reservations: lease.reservations,
    status,
    status_reason: reason,
    create_time: now,
    update_time: now,
    end_time: null,
    on_end_sent: false,
  };
}

/** The lease, locked for this transaction; NOT_FOUND when there is none. */
export async function lockedLease(
  tx: LedgerTx,
  project: string,
  leaseId: unknown,
): Promise<LeaseRow> {
  const row = isLookupId(leaseId) ? await tx.getForUpdate(project, leaseId) : undefined;
  if (!row) throw leaseNotFound(project, leaseId);
  return row;
}

/** Ends a lease now (or at its end date, when that passed unnoticed) and claims its on_end. */
export function terminate(tx: LedgerTx, row: LeaseRow, now: Date, reason: string) {
  const ending = endingOf(row.end_date, now, reason);
  return tx.terminate(row.uid, now, ending.reason, ending.endTime);
}
