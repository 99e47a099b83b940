import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import {
  EnforcementContext,
  LeaseRequest,
  RetryPolicy,
  decisionRecord,
  mayRetry,
} from '@rollout/domain/enforcement';
import { backoffMs, type BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { deliveryRetries } from '../delivery-retries';
import { Enforcement } from '../chain/enforcement';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { type LeaseRow, domainLease } from '../ledger/ledger-statements';
import { Ledger } from '../ledger/ledger.repository';
import type { LedgerTx } from '../ledger/ledger.repository';
import {
  OnEndEntry,
  OnEndOutboxRepository,
  OutboxRow,
  serialised,
} from './on-end-outbox.repository';

/** A queued on_end: its row (none when the lease's on_end was queued before) and what it sends. */
export interface QueuedOnEnd {
  id?: string;
  entry: OnEndEntry;
}

const BATCH = 50;

/**
 * Delivers on_end at least once to every filter of the chain: the first attempt right after the
 * lease ended, then, for the filters that failed (an ExternalService that answered anything but
 * a 2xx or did not answer, an adapter that was down), retries with exponential back-off until
 * each took it, across restarts and replicas (each claims due rows for a while, by time). Every attempt
 * is recorded as an ON_END decision. After ENFORCEMENT_ON_END_MAX_ATTEMPTS the row is kept as
 * abandoned and counted. Receivers deduplicate by the lease's id (`lease.id`), since a delivery
 * whose acknowledgement was lost is sent again.
 */
@Injectable()
export class OnEndOutbox implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OnEndOutbox');
  private readonly policy: RetryPolicy;
  private readonly retries: BackgroundLoop;

  constructor(
    private readonly outbox: OnEndOutboxRepository,
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) config: Config,
  ) {
    ({ policy: this.policy, loop: this.retries } = deliveryRetries(
      'OnEndOutbox',
      config,
      config.ENFORCEMENT_ON_END_MAX_ATTEMPTS,
      () => this.drainDue(),
    ));
  }

  onApplicationBootstrap(): void {
    this.retries.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.retries.stop();
  }

  /**
   * Queues the on_end of a lease in the transaction that ends it, so an ended lease always has
   * its on_end queued, whatever happens next; once per lease (a second end queues nothing).
   * `lease` is what the filters hear about (Blazar's own view on its on-end).
   */
  async queue(
    tx: LedgerTx,
    row: LeaseRow,
    context: EnforcementContext,
    actor: string,
    now: Date,
    lease: LeaseRequest = domainLease(row),
  ): Promise<QueuedOnEnd> {
    const entry: OnEndEntry = {
      leaseUid: row.uid,
      project: row.project,
      leaseId: row.lease_id,
      actor,
      context: { ...context, endedAt: now.toISOString() },
      lease,
    };
    return { id: await this.outbox.queue(tx, entry, now), entry };
  }

  /** The first attempt of a queued on_end, right after its commit (the row is claimed for it). Never throws. */
  async deliver(queued: QueuedOnEnd | undefined): Promise<void> {
    if (queued?.id === undefined) return;
    const { id, entry } = queued;
    try {
      await this.attempt({
        id,
        lease_uid: entry.leaseUid,
        project: entry.project,
        lease_id: entry.leaseId,
        actor: entry.actor,
        context: entry.context,
        lease: serialised(entry.lease),
        pending: null,
        attempts: 0,
      });
    } catch (error) {
      // The row stays claimed until CLAIM_MS passes; the retry loop takes it then.
      this.logger.error(
        { err: error, project: entry.project, lease: entry.leaseId },
        'on_end delivery failed; will retry',
      );
    }
  }

  /** One pass of the retry loop: every due row, claimed by this replica, tried once. */
  async drainDue(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const claimed = await this.outbox.claimDue(now, BATCH);
      for (const row of claimed) await this.attempt(row);
      if (claimed.length < BATCH) break;
    }
    this.metrics.onEndPending(await this.outbox.countPending());
  }

  private async attempt(row: OutboxRow): Promise<void> {
    const now = this.clock.now();
    const lease: LeaseRequest = {
      ...row.lease,
      startDate: new Date(row.lease.startDate),
      endDate: new Date(row.lease.endDate),
    };
    const decision = this.enforcement.decided(
      await this.enforcement.onEndChain.onEnd(row.context, lease, row.pending ?? undefined),
    );
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
    for (const step of decision.steps)
      if (step.result !== 'error') this.metrics.onEndDelivery(step.filter, 'delivered');
    if (!failed.length) {
      await this.outbox.done({ id: row.id });
      return;
    }
    const attempts = row.attempts + 1;
    const lastError = failed
      .map((step) => `${step.filter}: ${step.message ?? 'failed'}`)
      .join('; ');
    if (!mayRetry(this.policy, attempts)) {
      for (const step of failed) this.metrics.onEndDelivery(step.filter, 'abandoned');
      this.logger.error(
        { project: row.project, lease: row.lease_id, attempts, reason: lastError },
        'on_end given up after its last attempt',
      );
      await this.outbox.abandon(
        { id: row.id },
        { attempts, lastError, set: { pending: failed.map((s) => s.filter) } },
        now,
      );
      return;
    }
    for (const step of failed) this.metrics.onEndDelivery(step.filter, 'retry');
    const next = new Date(now.getTime() + backoffMs(attempts, this.policy));
    await this.outbox.retryAt(
      { id: row.id },
      { attempts, lastError, set: { pending: failed.map((s) => s.filter) } },
      next,
    );
  }
}
