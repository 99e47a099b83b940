import type { Lease, LeaseDecision } from '@rollout/contracts';
import { reservationToApi } from '@rollout/domain/enforcement';
import type { DecisionRow, LeaseRow } from '../ledger/ledger-statements';

export function leaseView(row: LeaseRow): Lease {
  return {
    id: row.lease_id,
    project: row.project,
    name: row.name,
    startDate: row.start_date.toISOString(),
    endDate: row.end_date.toISOString(),
    reservations: row.reservations.map(reservationToApi),
    status: row.status,
    ...(row.status_reason ? { statusReason: row.status_reason } : {}),
    origin: row.origin,
    creator: row.creator,
    createTime: row.create_time.toISOString(),
    updateTime: row.update_time.toISOString(),
    ...(row.end_time ? { endTime: row.end_time.toISOString() } : {}),
  };
}

export function decisionView(row: DecisionRow): LeaseDecision {
  return {
    hook: row.hook,
    result: row.result,
    ...(row.filter ? { filter: row.filter } : {}),
    ...(row.message ? { message: row.message } : {}),
    exempted: row.exempted,
    steps: row.steps,
    time: row.time.toISOString(),
    actor: row.actor,
    userId: row.user_id,
    ...(row.request_id ? { requestId: row.request_id } : {}),
  };
}
