import { Injectable } from '@nestjs/common';
import type { EnforcementContext, LeaseRequest } from '@rollout/domain/enforcement';
import { DeliveryQueue, poolOf } from '@rollout/platform/postgres';
import { DataSource } from 'typeorm';
import type { LedgerTx } from '../ledger/ledger.repository';

/** An on_end to deliver: everything needed to send it again after a restart. */
export interface OnEndEntry {
  leaseUid: string;
  project: string;
  leaseId: string;
  actor: string;
  context: EnforcementContext;
  lease: LeaseRequest;
}

/** A row of `on_end_outbox`: an on_end still to be delivered to the filters in `pending` (all when null). */
export interface OutboxRow {
  id: string;
  lease_uid: string;
  project: string;
  lease_id: string;
  actor: string;
  context: EnforcementContext;
  lease: {
    name: string;
    startDate: string;
    endDate: string;
    reservations: LeaseRequest['reservations'];
  };
  pending: string[] | null;
  attempts: number;
}

/** How long a replica's claim on a row lasts: past it, another replica may try the row again. */
const CLAIM_MS = 60_000;

/** The lease as the outbox keeps it (dates as ISO text). */
export function serialised(lease: LeaseRequest): OutboxRow['lease'] {
  return {
    ...lease,
    startDate: lease.startDate.toISOString(),
    endDate: lease.endDate.toISOString(),
  };
}

/**
 * The on_end outbox table as a delivery queue: one row per ended lease, written in the
 * transaction that ends it, claimed by replicas for CLAIM_MS while they try it.
 */
@Injectable()
export class OnEndOutboxRepository extends DeliveryQueue<Omit<OutboxRow, 'attempts'>> {
  constructor(dataSource: DataSource) {
    super(
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

  /**
   * Queues a lease's on_end in the transaction that ends it, claimed for CLAIM_MS by its first
   * attempt; the row's id, or undefined when the lease's on_end was queued before.
   */
  async queue(tx: LedgerTx, entry: OnEndEntry, now: Date): Promise<string | undefined> {
    const [queued] = await tx.execute<{ id: string }>(
      this.enqueueStatement(
        {
          lease_uid: entry.leaseUid,
          project: entry.project,
          lease_id: entry.leaseId,
          actor: entry.actor,
          context: JSON.stringify(entry.context),
          lease: JSON.stringify(serialised(entry.lease)),
        },
        new Date(now.getTime() + CLAIM_MS),
        now,
      ),
    );
    return queued?.id;
  }
}
