import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AdapterStatus, Clock, RetryPolicy, isOk, retryDelayMs } from '@rollout/enforcement-domain';
import { poolOf } from '@rollout/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { CLOCK } from '@rollout/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { EnforcementMetrics } from '../leases/enforcement-metrics';
import { AdapterClient } from './adapter-client';

/** How long a CloseSession waits for its answer. */
export const CLOSE_TIMEOUT_MS = 2_000;
const BATCH = 50;

interface PendingClose {
  adapter: string;
  session_id: string;
  handler: string;
  attempts: number;
}

/**
 * The adapter's answer to CloseSession: `closed` acknowledged; `unknown` the adapter does not know
 * the session (adapter.v1 answers FAILED_PRECONDITION, or NOT_FOUND, for a session it never made,
 * closed already, or lost with its state), so nothing is left open; `retry` anything else.
 */
function outcomeOf(status: AdapterStatus | undefined): 'closed' | 'unknown' | 'retry' {
  if (isOk(status)) return 'closed';
  return status?.status === 'FAILED_PRECONDITION' || status?.status === 'NOT_FOUND' ? 'unknown' : 'retry';
}

/**
 * Closes adapter sessions so that none stays open at the adapter once its handler moved on (a
 * config change, shutdown). A CloseSession that is not acknowledged (the adapter is down, slow, or
 * answers an error) is written to `adapter_session_closes` and tried again with back-off, across
 * restarts, until the adapter acknowledges it or says it does not know the session. Replicas
 * share the retries (SKIP LOCKED).
 */
@Injectable()
export class SessionCloses implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AdapterSessions');
  private readonly pool: Pool;
  private readonly policy: RetryPolicy;
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;

  constructor(
    dataSource: DataSource,
    private readonly client: AdapterClient,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {
    this.pool = poolOf(dataSource);
    this.policy = { baseMs: config.ENFORCEMENT_RETRY_BASE_MS, maxMs: config.ENFORCEMENT_RETRY_MAX_MS, maxAttempts: Number.POSITIVE_INFINITY };
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.draining) return;
      this.draining = this.drainDue()
        .catch((error) => this.logger.error({ err: error }, 'CloseSession retry pass failed; will try again'))
        .finally(() => (this.draining = undefined));
    }, this.config.ENFORCEMENT_RETRY_POLL_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.draining;
  }

  /** CloseSession now; when it is not acknowledged, kept for the retries. Never throws. */
  async close(handler: string, adapter: string, sessionId: string): Promise<void> {
    const why = await this.attempt(adapter, sessionId);
    if (why === undefined) return;
    try {
      const now = this.clock.now();
      await this.pool.query(
        `INSERT INTO adapter_session_closes (adapter, session_id, handler, attempts, next_attempt_at, last_error, created_at)
         VALUES ($1, $2, $3, 1, $4, $5, $6) ON CONFLICT (adapter, session_id) DO NOTHING`,
        [adapter, sessionId, handler, new Date(now.getTime() + retryDelayMs(this.policy, 1)), why, now],
      );
      this.logger.warn({ handler, adapter, session: sessionId, reason: why }, 'CloseSession not acknowledged; will retry');
    } catch (error) {
      this.logger.error({ err: error, handler, adapter, session: sessionId }, 'CloseSession not acknowledged and could not be kept for a retry');
    }
  }

  /** One pass of the retries: every due close, claimed by this replica, tried once. */
  async drainDue(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const due = await client.query<PendingClose>(
        `SELECT adapter, session_id, handler, attempts FROM adapter_session_closes WHERE next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.clock.now(), BATCH],
      );
      for (const row of due.rows) {
        const why = await this.attempt(row.adapter, row.session_id);
        if (why === undefined) {
          await client.query('DELETE FROM adapter_session_closes WHERE adapter = $1 AND session_id = $2', [row.adapter, row.session_id]);
        } else {
          const attempts = row.attempts + 1;
          await client.query('UPDATE adapter_session_closes SET attempts = $3, next_attempt_at = $4, last_error = $5 WHERE adapter = $1 AND session_id = $2', [
            row.adapter,
            row.session_id,
            attempts,
            new Date(this.clock.now().getTime() + retryDelayMs(this.policy, attempts)),
            why,
          ]);
        }
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** One CloseSession; undefined when the session is closed for good, else why not. */
  private async attempt(adapter: string, sessionId: string): Promise<string | undefined> {
    let outcome: 'closed' | 'unknown' | 'retry';
    let why: string | undefined;
    try {
      const reply = await this.client.call<{ status?: AdapterStatus }>(adapter, 'closeSession', { sessionId }, CLOSE_TIMEOUT_MS);
      outcome = outcomeOf(reply.status);
      if (outcome === 'retry') why = `CloseSession answered ${reply.status?.status ?? 'no status'} ${reply.status?.message ?? ''}`.trim();
    } catch (error) {
      outcome = 'retry';
      why = error instanceof Error ? error.message : String(error);
    }
    this.metrics.sessionClose(adapter, outcome);
    return why;
  }
}
