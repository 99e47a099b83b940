import { Inject, Injectable } from '@nestjs/common';
import type { BlazarVerdict, Clock } from '@rollout/contracts';
import {
  BlazarLeaseView,
  EnforcementContext,
  blazarLeaseId,
  blazarProject,
  parseBlazarCall,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import type { LeaseRow } from '../ledger/ledger-statements';
import type { LedgerTx } from '../ledger/ledger.repository';
import { Ledger } from '../ledger/ledger.repository';
import { OnEndOutbox } from '../on-end/on-end-outbox.job';
import { isLive, newRow, terminate } from './lease-records';

/** Blazar's on_end hook, over the same ledger as the API's leases. */
@Injectable()
export class BlazarOnEnd {
  constructor(
    private readonly ledger: Ledger,
    private readonly onEndOutbox: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  /** Blazar says a lease ends: the ledger releases it and on_end goes out, once per lease. */
  async onEnd(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const { context, lease: view } = parseBlazarCall(
      payload,
      false,
      requestId,
      this.config.ENFORCEMENT_REGION_NAME,
    );
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(view.name, view.id, requestId);
    const queued = await this.ledger.transaction(async (tx) => {
      const row = await this.ended(tx, project, view, context, now);
      if (!row) return undefined;
      context.apiLeaseId = row.lease_id;
      // Blazar's view of the lease is what its filters hear about, as Blazar sends it.
      return this.onEndOutbox.queue(tx, row, context, 'blazar', now, view.lease);
    });
    await this.onEndOutbox.deliver(queued);
    return { allowed: true };
  }

  /** The ledger's row of a lease Blazar says ended, when its on_end is still to go out (claimed here). */
  private async ended(
    tx: LedgerTx,
    project: string,
    view: BlazarLeaseView,
    context: EnforcementContext,
    now: Date,
  ): Promise<LeaseRow | undefined> {
    const existing = await tx.findBlazarForUpdate(project, view);
    if (existing && isLive(existing)) return terminate(tx, existing, now, 'Ended by Blazar.');
    if (existing?.status === 'TERMINATED')
      return (await tx.claimOnEnd(existing.uid)) ? existing : undefined;
    if (existing) return undefined; // refused at creation: it never started, nothing to refund
    // A lease this ledger never saw (admitted before it tracked Blazar, say): remember it ended,
    // so on_end goes out once.
    return tx.insertLease({
      ...newRow(
        {
          uid: randomUUID(),
          project: project,
          lease_id: randomUUID(),
          origin: 'BLAZAR',
          creator: context.userId || 'blazar',
          region_name: this.config.ENFORCEMENT_REGION_NAME,
        },
        view.lease,
        'TERMINATED',
        'Ended by Blazar.',
        now,
      ),
      blazar_name: view.name ?? null,
      blazar_id: view.id ?? null,
      end_time: now,
      on_end_sent: true,
    });
  }
}
