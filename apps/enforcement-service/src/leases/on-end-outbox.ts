import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Clock, EnforcementContext, LeaseRequest, RetryPolicy, mayRetry, retryDelayMs } from '@rollout/enforcement-domain';
import { poolOf } from '@rollout/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { CLOCK } from '@rollout/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Enforcement } from './enforcement';
import { EnforcementMetrics } from './enforcement-metrics';
import { LeaseRow, Ledger, LedgerTx } from './ledger';
import { decisionRecord, domainLease } from './views';

/** An on_end to deliver: everything needed to send it again after a restart. */
export interface OnEndEntry {
  leaseUid: string;
  project: string;
  leaseId: string;
  actor: string;
  context: EnforcementContext;
  lease: LeaseRequest;
}

/** A queued on_end: its row (none when the lease's on_end was queued before) and what it sends. */
export interface QueuedOnEnd {
  id?: string;
  entry: OnEndEntry;
}

interface OutboxRow {
  id: string;
  lease_uid: string;
  project: string;
  lease_id: string;
  actor: string;
  context: EnforcementContext;
  lease: { name: string; startDate: string; endDate: string; reservations: LeaseRequest['reservations'] };
  pending: string[] | null;
  attempts: number;
}

/** How long a replica's claim on a row lasts: past it, another replica may try the row again. */
const CLAIM_MS = 60_000;
const BATCH = 50;
const COLUMNS = 'id::text, lease_uid, project, lease_id, actor, context, lease, pending, attempts';

/** The SQL that queues a lease's on_end, claimed for CLAIM_MS by its first attempt. */
function queueOnEndStatement(entry: OnEndEntry, now: Date): { text: string; values: unknown[] } {
  const lease = serialised(entry.lease);
  return {
    text: `INSERT INTO on_end_outbox (lease_uid, project, lease_id, actor, context, lease, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (lease_uid) DO NOTHING RETURNING id::text`,
    values: [entry.leaseUid, entry.project, entry.leaseId, entry.actor, JSON.stringify(entry.context), JSON.stringify(lease), new Date(now.getTime() + CLAIM_MS), now],
  };
}

/**
 * Delivers on_end at least once to every filter of the chain: the first attempt right after the
 * lease ended, then, for the filters that failed (an ExternalService that answered anything but
 * a 2xx or did not answer, an adapter that was down), retries with exponential back-off until
 * each took it, across restarts and replicas (rows are claimed with SKIP LOCKED). Every attempt
 * is recorded as an ON_END decision. After ENFORCEMENT_ON_END_MAX_ATTEMPTS the row is kept as
 * abandoned and counted. Receivers deduplicate by the lease's id (`lease.id`), since a delivery
 * whose acknowledgement was lost is sent again.
 */
@Injectable()
export class OnEndOutbox implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OnEndOutbox');
  private readonly pool: Pool;
  private readonly policy: RetryPolicy;
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;

  constructor(
    dataSource: DataSource,
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {
    this.pool = poolOf(dataSource);
    this.policy = { baseMs: config.ENFORCEMENT_RETRY_BASE_MS, maxMs: config.ENFORCEMENT_RETRY_MAX_MS, maxAttempts: config.ENFORCEMENT_ON_END_MAX_ATTEMPTS };
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.draining) return;
      this.draining = this.drainDue()
        .catch((error) => this.logger.error({ err: error }, 'on_end retry pass failed; will try again'))
        .finally(() => (this.draining = undefined));
    }, this.config.ENFORCEMENT_RETRY_POLL_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.draining;
  }

  /**
   * Queues the on_end of a lease in the transaction that ends it, so an ended lease always has
   * its on_end queued, whatever happens next; once per lease (a second end queues nothing).
   * `lease` is what the filters hear about (Blazar's own view on its on-end).
   */
  async queue(tx: LedgerTx, row: LeaseRow, context: EnforcementContext, actor: string, now: Date, lease: LeaseRequest = domainLease(row)): Promise<QueuedOnEnd> {
    const entry: OnEndEntry = { leaseUid: row.uid, project: row.project, leaseId: row.lease_id, actor, context: { ...context, endedAt: now.toISOString() }, lease };
    const [queued] = await tx.execute<{ id: string }>(queueOnEndStatement(entry, now));
    return { id: queued?.id, entry };
  }

  /** The first attempt of a queued on_end, right after its commit (the row is claimed for it). Never throws. */
  async deliver(queued: QueuedOnEnd | undefined): Promise<void> {
    if (queued?.id === undefined) return;
    const { id, entry } = queued;
    try {
      await this.attempt({ id, lease_uid: entry.leaseUid, project: entry.project, lease_id: entry.leaseId, actor: entry.actor, context: entry.context, lease: serialised(entry.lease), pending: null, attempts: 0 });
    } catch (error) {
      // The row stays claimed until CLAIM_MS passes; the retry loop takes it then.
      this.logger.error({ err: error, project: entry.project, lease: entry.leaseId }, 'on_end delivery failed; will retry');
    }
  }

  /** One pass of the retry loop: every due row, claimed by this replica, tried once. */
  async drainDue(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const claimed = await this.pool.query<OutboxRow>(
        `UPDATE on_end_outbox SET next_attempt_at = $2
          WHERE id IN (SELECT id FROM on_end_outbox WHERE abandoned_at IS NULL AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
          RETURNING ${COLUMNS}`,
        [now, new Date(now.getTime() + CLAIM_MS), BATCH],
      );
      for (const row of claimed.rows) await this.attempt(row);
      if (claimed.rows.length < BATCH) break;
    }
    const pending = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM on_end_outbox WHERE abandoned_at IS NULL');
    this.metrics.onEndPending(pending.rows[0].n);
  }

  private async attempt(row: OutboxRow): Promise<void> {
    const now = this.clock.now();
    const lease: LeaseRequest = { ...row.lease, startDate: new Date(row.lease.startDate), endDate: new Date(row.lease.endDate) };
    const decision = this.enforcement.decided(await this.enforcement.onEndChain.onEnd(row.context, lease, row.pending ?? undefined));
    await this.ledger.insertDecision({
      leaseUid: row.lease_uid,
      project: row.project,
      leaseId: row.lease_id,
      ...decisionRecord(decision),
      time: now,
      actor: row.actor,
      userId: row.context.userId,
      requestId: row.context.requestId,
    });
    const failed = decision.steps.filter((step) => step.result === 'error');
    for (const step of decision.steps) if (step.result !== 'error') this.metrics.onEndDelivery(step.filter, 'delivered');
    if (!failed.length) {
      await this.pool.query('DELETE FROM on_end_outbox WHERE id = $1', [row.id]);
      return;
    }
    const attempts = row.attempts + 1;
    const lastError = failed.map((step) => `${step.filter}: ${step.message ?? 'failed'}`).join('; ');
    if (!mayRetry(this.policy, attempts)) {
      for (const step of failed) this.metrics.onEndDelivery(step.filter, 'abandoned');
      this.logger.error({ project: row.project, lease: row.lease_id, attempts, reason: lastError }, 'on_end given up after its last attempt');
      await this.pool.query('UPDATE on_end_outbox SET attempts = $2, pending = $3, last_error = $4, abandoned_at = $5 WHERE id = $1', [row.id, attempts, failed.map((s) => s.filter), lastError, now]);
      return;
    }
    for (const step of failed) this.metrics.onEndDelivery(step.filter, 'retry');
    const next = new Date(now.getTime() + retryDelayMs(this.policy, attempts));
    await this.pool.query('UPDATE on_end_outbox SET attempts = $2, pending = $3, last_error = $4, next_attempt_at = $5 WHERE id = $1', [row.id, attempts, failed.map((s) => s.filter), lastError, next]);
  }
}

function serialised(lease: LeaseRequest): OutboxRow['lease'] {
  return { ...lease, startDate: lease.startDate.toISOString(), endDate: lease.endDate.toISOString() };
}
