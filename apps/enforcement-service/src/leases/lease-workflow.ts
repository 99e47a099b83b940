import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import {
  ChainDecision,
  EnforcementChain,
  EnforcementContext,
  LeaseRequest,
  adapterLeaseId,
  decisionRecord,
  endingOf,
  isLiveStatus,
  isLookupId,
  leaseNotFound,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Enforcement } from './enforcement';
import type { CountingFacts, LeaseRow, NewDecision } from './ledger-statements';
import type { CountingTx, LedgerTx } from './ledger.repository';
import { Ledger } from './ledger.repository';
import { KeyedQueue } from './project-queue';

export type LeaseIds = Pick<EnforcementContext, 'leaseId' | 'apiLeaseId'>;
type CountingProbe = { exists: string } | { blazar: { id?: string; name?: string } };

export const isLive = (row: LeaseRow) => isLiveStatus(row.status);

/** The ids filters get for a lease of the ledger: the adapters' key, and the id users see in the API. */
export function idsOf(row: LeaseRow): LeaseIds {
  return {
    leaseId: adapterLeaseId({
      origin: row.origin,
      uid: row.uid,
      blazarName: row.blazar_name,
      blazarId: row.blazar_id,
    }),
    apiLeaseId: row.lease_id,
  };
}

/**
 * The steps the API's lease use cases and Blazar's hooks share: counting decisions serialised
 * per project, the notifications of a lease's life, and the rows and decisions they write.
 */
@Injectable()
export class LeaseWorkflow {
  private readonly logger = new Logger('Leases');
  private readonly projects = new KeyedQueue();

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  /**
   * A decision that counts a project's leases, serialised per project: a queue in this process,
   * the ledger's transaction-scoped lock across replicas (see Ledger.counting).
   */
  counting<T>(
    project: string,
    now: Date,
    probe: CountingProbe,
    work: (tx: CountingTx, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    return this.projects.run(project, () => this.ledger.counting(project, now, probe, work));
  }

  /**
   * A create decision, MaxActiveLeases answered from the count read after the lock. If anything
   * fails after the checks passed, on_end goes out so that budget-keeping filters can refund.
   */
  async admit<T>(
    project: string,
    context: EnforcementContext,
    lease: LeaseRequest,
    actor: string,
    now: Date,
    probe: CountingProbe,
    work: (
      tx: CountingTx,
      facts: CountingFacts,
      decide: (live: number) => Promise<ChainDecision>,
    ) => Promise<{ row: T; decision: ChainDecision }>,
  ): Promise<{ row: T; decision: ChainDecision }> {
    let admitted = false;
    try {
      return await this.counting(project, now, probe, (tx, facts) =>
        work(tx, facts, async (live) => {
          const startedAt = process.hrtime.bigint();
          const decision = this.enforcement.decided(
            await this.enforcement
              .chain({ countActive: async () => live })
              .checkCreate(context, lease),
            startedAt,
          );
          admitted = decision.allowed;
          return decision;
        }),
      );
    } catch (error) {
      if (admitted) {
        this.logger.warn(
          { err: error, project },
          'create failed after the checks passed; sending on_end',
        );
        await this.notifyAborted(context, lease, actor, now);
      }
      throw error;
    }
  }

  /** A chain whose MaxActiveLeases counts inside `tx` (updates do not count; kept exact all the same). */
  countingChain(tx: LedgerTx, now: Date): EnforcementChain {
    return this.enforcement.chain({ countActive: (project) => tx.countLive(project, now) });
  }

  /** Filters that follow the lease's life (adapters' reports) hear of a committed create; never throws. */
  async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    try {
      await this.enforcement.onEndChain.notifyCreated(context, lease);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'created notification failed');
    }
  }

  /** Filters that follow the lease's life (adapters' reports, refunds of a shrink) hear of a committed update; never throws. */
  async notifyUpdated(
    context: EnforcementContext,
    before: LeaseRequest,
    after: LeaseRequest,
  ): Promise<void> {
    try {
      await this.enforcement.onEndChain.notifyUpdated(context, before, after);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'updated notification failed');
    }
  }

  /** An admitted create that could not be written: filters give back what they took (no lease, nothing to retry); never throws. */
  private async notifyAborted(
    context: EnforcementContext,
    lease: LeaseRequest,
    actor: string,
    now: Date,
  ): Promise<void> {
    try {
      const decision = this.enforcement.decided(
        await this.enforcement.onEndChain.abortCreate(context, lease),
      );
      await this.ledger.insertDecision(
        this.decisionOf(randomUUID(), context.projectId, '', decision, now, actor, context),
      );
    } catch (error) {
      this.logger.error(
        { err: error, project: context.projectId },
        'recording an aborted create failed',
      );
    }
  }

  terminate(tx: LedgerTx, row: LeaseRow, now: Date, reason: string): Promise<LeaseRow> {
    const ending = endingOf(row.end_date, now, reason);
    return tx.terminate(row.uid, now, ending.reason, ending.endTime);
  }

  async lockedLease(tx: LedgerTx, project: string, leaseId: unknown): Promise<LeaseRow> {
    const row = isLookupId(leaseId) ? await tx.getForUpdate(project, leaseId) : undefined;
    if (!row) throw leaseNotFound(project, leaseId);
    return row;
  }

  context(
    project: string,
    userId: string,
    requestId: string,
    ids: LeaseIds = {},
  ): EnforcementContext {
    return {
      userId,
      projectId: project,
      regionName: this.config.ENFORCEMENT_REGION_NAME,
      requestId,
      ...ids,
    };
  }

  decisionOf(
    uid: string,
    project: string,
    leaseId: string,
    decision: ChainDecision,
    now: Date,
    actor: string,
    context: EnforcementContext,
  ): NewDecision {
    return {
      leaseUid: uid,
      project,
      leaseId,
      ...decisionRecord(decision),
      time: now,
      actor,
      userId: context.userId,
      requestId: context.requestId,
    };
  }

  newRow(
    uid: string,
    project: string,
    leaseId: string,
    origin: LeaseRow['origin'],
    lease: LeaseRequest,
    status: LeaseStatus,
    reason: string | null,
    creator: string,
    now: Date,
  ): LeaseRow {
    return {
      uid,
      project,
      lease_id: leaseId,
      origin,
      blazar_name: null,
      blazar_id: null,
      name: lease.name,
      start_date: lease.startDate,
      end_date: lease.endDate,
      reservations: lease.reservations,
      status,
      status_reason: reason,
      creator,
      region_name: this.config.ENFORCEMENT_REGION_NAME,
      create_time: now,
      update_time: now,
      end_time: null,
      on_end_sent: false,
    };
  }
}
