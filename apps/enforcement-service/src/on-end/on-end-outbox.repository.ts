import { Injectable } from '@nestjs/common';
import type { EnforcementContext, LeaseRequest } from '@rollout/domain/enforcement';
import { DeliveryQueue, poolOf } from '@rollout/platform/postgres';
import { DataSource } from 'typeorm';
import type { DeliveryStore, Retry } from '../delivery-job';
import type { LedgerUnit } from '../ledger/ledger.repository';

/** Everything needed to send it again after a restart. */
export interface OnEndEntry {
  leaseUid: string;
  project: string;
  leaseId: string;
  actor: string;
  context: EnforcementContext;
  lease: LeaseRequest;
}

/** Still owed to the filters in `pending` (all when null). */
export interface OnEndDue extends OnEndEntry {
  id: string;
  pending: string[] | null;
  attempts: number;
}

interface OutboxRow {
  id: string;
  lease_uid: string;
  project: string;
  lease_id: string;
  actor: string;
  context: EnforcementContext & { leaseId?: string };
  lease: StoredLease;
  pending: string[] | null;
  attempts: number;
}

type StoredLease = Omit<LeaseRequest, 'startDate' | 'endDate'> & {
  startDate: string;
  endDate: string;
};

/** How long a replica's claim on a row lasts: past it, another replica may try the row again. */
const CLAIM_MS = 60_000;

const stored = (lease: LeaseRequest): StoredLease => ({
  ...lease,
  startDate: lease.startDate.toISOString(),
  endDate: lease.endDate.toISOString(),
});

/** Rows queued before the adapters' id had its own name carry it as `leaseId`. */
function contextOfRow({ leaseId, ...context }: OutboxRow['context']): EnforcementContext {
  const adapterLeaseId = context.adapterLeaseId ?? leaseId;
  return adapterLeaseId === undefined ? context : { ...context, adapterLeaseId };
}

function dueOfRow(row: OutboxRow): OnEndDue {
  return {
    id: row.id,
    leaseUid: row.lease_uid,
    project: row.project,
    leaseId: row.lease_id,
    actor: row.actor,
    context: contextOfRow(row.context),
    lease: {
      ...row.lease,
      startDate: new Date(row.lease.startDate),
      endDate: new Date(row.lease.endDate),
    },
    pending: row.pending,
    attempts: row.attempts,
  };
}

@Injectable()
export class OnEndOutboxRepository implements DeliveryStore<OnEndDue> {
  private readonly table: DeliveryQueue<Omit<OutboxRow, 'attempts'>>;

  constructor(dataSource: DataSource) {
    this.table = new DeliveryQueue(
      poolOf(dataSource),
      {
        name: 'on_end_outbox',
        key: ['id'],
        unique: ['lease_uid'],
        payload: ['lease_uid', 'project', 'lease_id', 'actor', 'context', 'lease', 'pending'],
        abandons: true,
      },
      CLAIM_MS,
    );
  }

  /** Undefined when the lease's on_end was queued before. */
  async queue(unit: LedgerUnit, entry: OnEndEntry, now: Date): Promise<OnEndDue | undefined> {
    const [queued] = await unit.execute<{ id: string }>(
      this.table.enqueueStatement(
        {
          lease_uid: entry.leaseUid,
          project: entry.project,
          lease_id: entry.leaseId,
          actor: entry.actor,
          context: JSON.stringify(entry.context),
          lease: JSON.stringify(stored(entry.lease)),
        },
        new Date(now.getTime() + CLAIM_MS),
        now,
      ),
    );
    return queued && { ...entry, id: queued.id, pending: null, attempts: 0 };
  }

  async claimDue(now: Date, limit: number): Promise<OnEndDue[]> {
    return (await this.table.claimDue(now, limit)).map(dueOfRow);
  }

  done(due: OnEndDue): Promise<void> {
    return this.table.done({ id: due.id });
  }

  retryAt(due: OnEndDue, retry: Retry, at: Date): Promise<void> {
    return this.table.retryAt({ id: due.id }, this.retryOf(retry), at);
  }

  abandon(due: OnEndDue, retry: Retry, at: Date): Promise<void> {
    return this.table.abandon({ id: due.id }, this.retryOf(retry), at);
  }

  countPending(): Promise<number> {
    return this.table.countPending();
  }

  private retryOf({ attempts, lastError, owed }: Retry) {
    return { attempts, lastError, set: { pending: owed ?? null } };
  }
}
