import type { Lease as ApiLease, LeaseDecision } from '@rollout/contracts';
import { type Lease, reservationToApi } from '@rollout/domain/enforcement';
import type { StoredDecision } from '../ledger/ledger.repository';

export function leaseView(lease: Lease): ApiLease {
  return {
    id: lease.leaseId,
    project: lease.project,
    name: lease.name,
    startDate: lease.startDate.toISOString(),
    endDate: lease.endDate.toISOString(),
    reservations: lease.reservations.map(reservationToApi),
    status: lease.status,
    ...(lease.statusReason ? { statusReason: lease.statusReason } : {}),
    origin: lease.origin,
    creator: lease.creator,
    createTime: lease.createTime.toISOString(),
    updateTime: lease.updateTime.toISOString(),
    ...(lease.endTime ? { endTime: lease.endTime.toISOString() } : {}),
  };
}

export function decisionView(decision: StoredDecision): LeaseDecision {
  return {
    hook: decision.hook,
    result: decision.result,
    ...(decision.filter ? { filter: decision.filter } : {}),
    ...(decision.message ? { message: decision.message } : {}),
    exempted: decision.exempted,
    steps: decision.steps,
    time: decision.time.toISOString(),
    actor: decision.actor,
    userId: decision.userId,
    ...(decision.requestId ? { requestId: decision.requestId } : {}),
  };
}
