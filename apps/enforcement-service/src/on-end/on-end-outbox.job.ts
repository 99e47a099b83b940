import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import {
  EnforcementContext,
  Lease,
  LeaseRequest,
  recordOf,
  requestOf,
} from '@rollout/domain/enforcement';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Attempted, DeliveryJob, Settled } from '../delivery-job';
import { Enforcement } from '../chain/enforcement';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { Ledger, LedgerUnit } from '../ledger/ledger.repository';
import { OnEndDue, OnEndOutboxRepository } from './on-end-outbox.repository';

export type { OnEndDue as QueuedOnEnd } from './on-end-outbox.repository';

/**
 * At least once to every filter, retried with back-off across restarts and replicas until each
 * took it, then kept as abandoned. Receivers deduplicate by `lease.id`, since a delivery whose
 * acknowledgement was lost is sent again.
 */
@Injectable()
export class OnEndOutbox extends DeliveryJob<OnEndDue> {
  private readonly logger = new Logger('OnEndOutbox');

  constructor(
    private readonly outbox: OnEndOutboxRepository,
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) config: Config,
  ) {
    super(outbox, clock, config, {
      name: 'OnEndOutbox',
      maxAttempts: config.ENFORCEMENT_ON_END_MAX_ATTEMPTS,
      batch: 50,
      batchesPerPass: Number.POSITIVE_INFINITY,
    });
  }

  /** In the unit of work that ends the lease, so an ended lease always has its on_end queued; once per lease. */
  queue(
    unit: LedgerUnit,
    lease: Lease,
    context: EnforcementContext,
    actor: string,
    now: Date,
    request: LeaseRequest = requestOf(lease),
  ): Promise<OnEndDue | undefined> {
    return this.outbox.queue(
      unit,
      {
        leaseUid: lease.uid,
        project: lease.project,
        leaseId: lease.leaseId,
        actor,
        context: { ...context, endedAt: now.toISOString() },
        lease: request,
      },
      now,
    );
  }

  /** Never throws. */
  async deliver(queued: OnEndDue | undefined): Promise<void> {
    if (!queued) return;
    try {
      await this.settle(queued, await this.attempt(queued));
    } catch (error) {
      // The row stays claimed until its claim passes; the retry loop takes it then.
      this.logger.error(
        { err: error, project: queued.project, lease: queued.leaseId },
        'on_end delivery failed; will retry',
      );
    }
  }

  protected override async afterPass(): Promise<void> {
    this.metrics.onEndPending(await this.outbox.countPending());
  }

  protected async attempt(due: OnEndDue): Promise<Attempted> {
    const decision = await this.enforcement.onEnd(due.context, due.lease, due.pending ?? undefined);
    const subject = { uid: due.leaseUid, project: due.project, leaseId: due.leaseId };
    const call = { actor: due.actor, context: due.context, now: this.clock.now() };
    await this.ledger.record(recordOf(subject, decision, call));
    const failed = decision.steps.filter((step) => step.result === 'error');
    for (const step of decision.steps)
      if (step.result !== 'error') this.metrics.onEndDelivery(step.filter, 'delivered');
    if (!failed.length) return {};
    return {
      failure: failed.map((step) => `${step.filter}: ${step.message ?? 'failed'}`).join('; '),
      owed: failed.map((step) => step.filter),
    };
  }

  protected override async settle(due: OnEndDue, attempted: Attempted): Promise<Settled> {
    const settled = await super.settle(due, attempted);
    if (settled === 'done') return settled;
    for (const filter of attempted.owed ?? []) this.metrics.onEndDelivery(filter, settled);
    if (settled === 'abandoned')
      this.logger.error(
        {
          project: due.project,
          lease: due.leaseId,
          attempts: due.attempts + 1,
          reason: attempted.failure,
        },
        'on_end given up after its last attempt',
      );
    return settled;
  }
}
