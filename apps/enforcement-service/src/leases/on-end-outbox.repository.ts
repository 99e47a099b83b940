import { Injectable } from '@nestjs/common';
import type { EnforcementContext, LeaseRequest } from '@rollout/domain/enforcement';
import { poolOf } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { LedgerTx } from './ledger-tx.repository';

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
const COLUMNS = 'id::text, lease_uid, project, lease_id, actor, context, lease, pending, attempts';

/** The lease as the outbox keeps it (dates as ISO text). */
export function serialised(lease: LeaseRequest): OutboxRow['lease'] {
  return {
    ...lease,
    startDate: lease.startDate.toISOString(),
    endDate: lease.endDate.toISOString(),
  };
}

/** The on_end outbox table: queued on_end notifications, claimed by replicas with SKIP LOCKED. */
@Injectable()
export class OnEndOutboxRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  /**
   * Queues a lease's on_end in the transaction that ends it, claimed for CLAIM_MS by its first
   * attempt; the row's id, or undefined when the lease's on_end was queued before.
   */
  async queue(tx: LedgerTx, entry: OnEndEntry, now: Date): Promise<string | undefined> {
    const [queued] = await tx.execute<{ id: string }>({
      text: `INSERT INTO on_end_outbox (lease_uid, project, lease_id, actor, context, lease, next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (lease_uid) DO NOTHING RETURNING id::text`,
      values: [
        entry.leaseUid,
        entry.project,
        entry.leaseId,
        entry.actor,
        JSON.stringify(entry.context),
        JSON.stringify(serialised(entry.lease)),
        new Date(now.getTime() + CLAIM_MS),
        now,
      ],
    });
    return queued?.id;
  }

  /** Up to `limit` rows due at `now`, claimed by this replica for CLAIM_MS. */
  async claimDue(now: Date, limit: number): Promise<OutboxRow[]> {
    const claimed = await this.pool.query<OutboxRow>(
      `UPDATE on_end_outbox SET next_attempt_at = $2
        WHERE id IN (SELECT id FROM on_end_outbox WHERE abandoned_at IS NULL AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [now, new Date(now.getTime() + CLAIM_MS), limit],
    );
    return claimed.rows;
  }

  /** On_end notifications neither delivered nor abandoned. */
  async countPending(): Promise<number> {
    return (
      await this.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM on_end_outbox WHERE abandoned_at IS NULL',
      )
    ).rows[0].n;
  }

  async delivered(id: string): Promise<void> {
    await this.pool.query('DELETE FROM on_end_outbox WHERE id = $1', [id]);
  }

  async retryAt(
    id: string,
    attempts: number,
    pending: string[],
    lastError: string,
    next: Date,
  ): Promise<void> {
    await this.pool.query(
      'UPDATE on_end_outbox SET attempts = $2, pending = $3, last_error = $4, next_attempt_at = $5 WHERE id = $1',
      [id, attempts, pending, lastError, next],
    );
  }

  /** Kept, but never tried again. */
  async abandon(
    id: string,
    attempts: number,
    pending: string[],
    lastError: string,
    now: Date,
  ): Promise<void> {
    await this.pool.query(
      'UPDATE on_end_outbox SET attempts = $2, pending = $3, last_error = $4, abandoned_at = $5 WHERE id = $1',
      [id, attempts, pending, lastError, now],
    );
  }
}
