import type {
  DecisionHook,
  DecisionResult,
  DecisionStep,
  LeaseOrigin,
  LeaseStatus,
} from '@rollout/contracts';
import type { DecisionRecord, Lease, Reservation } from '@rollout/domain/enforcement';

/** Reservations are stored in the domain's shape (plugin attributes snake_case). */
export interface LeaseRow {
  uid: string;
  project: string;
  lease_id: string;
  origin: LeaseOrigin;
  blazar_name: string | null;
  blazar_id: string | null;
  name: string;
  start_date: Date;
  end_date: Date;
  reservations: Reservation[];
  status: LeaseStatus;
  status_reason: string | null;
  creator: string;
  region_name: string;
  create_time: Date;
  update_time: Date;
  end_time: Date | null;
  on_end_sent: boolean;
}

export function leaseOfRow(row: LeaseRow): Lease {
  return {
    uid: row.uid,
    leaseId: row.lease_id,
    project: row.project,
    origin: row.origin,
    blazarName: row.blazar_name,
    blazarId: row.blazar_id,
    name: row.name,
    startDate: row.start_date,
    endDate: row.end_date,
    reservations: row.reservations,
    status: row.status,
    statusReason: row.status_reason,
    creator: row.creator,
    regionName: row.region_name,
    createTime: row.create_time,
    updateTime: row.update_time,
    endTime: row.end_time,
    onEndSent: row.on_end_sent,
  };
}

export interface DecisionRow {
  id: string;
  hook: DecisionHook;
  result: DecisionResult;
  filter: string | null;
  message: string | null;
  exempted: boolean;
  steps: DecisionStep[];
  time: Date;
  actor: string;
  user_id: string;
  request_id: string | null;
}

export type StoredDecision = Omit<DecisionRecord, 'leaseUid' | 'project' | 'leaseId'> & {
  id: string;
};

export function decisionOfRow(row: DecisionRow): StoredDecision {
  return {
    id: row.id,
    hook: row.hook,
    result: row.result,
    ...(row.filter !== null ? { filter: row.filter } : {}),
    ...(row.message !== null ? { message: row.message } : {}),
    exempted: row.exempted,
    steps: row.steps,
    time: row.time,
    actor: row.actor,
    userId: row.user_id,
    ...(row.request_id !== null ? { requestId: row.request_id } : {}),
  };
}

export interface CountingFacts {
  live: number;
  taken: boolean;
  tracked?: Lease;
}
