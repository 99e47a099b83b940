import type {
  DecisionHook,
  DecisionResult,
  DecisionStep,
  LeaseOrigin,
  LeaseStatus,
} from '@rollout/contracts';
import type { Reservation } from '@rollout/domain/enforcement';

/** A row of `leases`. Reservations are stored in the domain's shape (plugin attributes snake_case). */
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

export interface NewDecision {
  leaseUid: string;
  project: string;
  leaseId: string;
  hook: DecisionHook;
  result: DecisionResult;
  filter?: string;
  message?: string;
  exempted: boolean;
  steps: DecisionStep[];
  time: Date;
  actor: string;
  userId: string;
  requestId?: string;
}

/** The part of a lease an update or a re-admission changes. */
export interface LeaseChange {
  name: string;
  start_date: Date;
  end_date: Date;
  reservations: Reservation[];
  status: LeaseStatus;
  status_reason: string | null;
  update_time: Date;
  blazar_name?: string | null;
  blazar_id?: string | null;
}

/** What a counting decision knows when its transaction opens. */
export interface CountingFacts {
  /** PENDING and ACTIVE leases of the project whose end is ahead. */
  live: number;
  /** `exists`: whether the lease id is taken. */
  taken: boolean;
  /** `blazar`: the lease Blazar names, a live one first. */
  tracked?: LeaseRow;
}
