import { Injectable } from '@nestjs/common';
import { inTransaction, poolOf } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/** A CloseSession not acknowledged yet. */
export interface PendingClose {
  adapter: string;
  session_id: string;
  handler: string;
  attempts: number;
}

/** When to try a pending close again, and why the last attempt failed. */
export interface CloseRetry {
  attempts: number;
  nextAttemptAt: Date;
  lastError: string;
}

/** `adapter_session_closes`: CloseSession calls to try again, shared by replicas with SKIP LOCKED. */
@Injectable()
export class SessionClosesRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  /** Keeps a close for the retries; a close kept already stays as it is. */
  async keep(
    handler: string,
    adapter: string,
    sessionId: string,
    retry: CloseRetry,
    now: Date,
  ): Promise<void> {
    await this.pool.query(
      `INSERT INTO adapter_session_closes (adapter, session_id, handler, attempts, next_attempt_at, last_error, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (adapter, session_id) DO NOTHING`,
      [adapter, sessionId, handler, retry.attempts, retry.nextAttemptAt, retry.lastError, now],
    );
  }

  /**
   * Tries up to `limit` closes due at `now`, held by this transaction while they are tried: a
   * close `attempt` settles (undefined) is removed, any other is kept with its next retry.
   */
  settleDue(
    now: Date,
    limit: number,
    attempt: (close: PendingClose) => Promise<CloseRetry | undefined>,
  ): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      const due = await client.query<PendingClose>(
        `SELECT adapter, session_id, handler, attempts FROM adapter_session_closes WHERE next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      for (const row of due.rows) {
        const retry = await attempt(row);
        if (retry === undefined) {
          await client.query(
            'DELETE FROM adapter_session_closes WHERE adapter = $1 AND session_id = $2',
            [row.adapter, row.session_id],
          );
        } else {
          await client.query(
            'UPDATE adapter_session_closes SET attempts = $3, next_attempt_at = $4, last_error = $5 WHERE adapter = $1 AND session_id = $2',
            [row.adapter, row.session_id, retry.attempts, retry.nextAttemptAt, retry.lastError],
          );
        }
      }
    });
  }
}
