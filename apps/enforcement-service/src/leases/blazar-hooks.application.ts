import { Inject, Injectable } from '@nestjs/common';
import type { BlazarVerdict, Clock, LeaseStatus } from '@rollout/contracts';
import {
  BlazarLeaseView,
  ChainDecision,
  UNCHECKED_UPDATE,
  admittedStatus,
  blazarLeaseId,
  blazarProject,
  decidedStatus,
  liveExcludingItself,
  parseBlazarCall,
  updateNeedsChecks,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Enforcement } from '../chain/enforcement';
import { Ledger } from '../ledger/ledger.repository';
import { LeaseAdmission } from './lease-admission';
import { decisionOf, isLive, newRow } from './lease-records';
import type { LeaseChange, LeaseRow } from '../ledger/ledger-statements';

/**
 * Blazar's check_create and check_update hooks over the same ledger and chain as the API's
 * leases: Blazar's leases are tracked by Blazar's name (or id) and count like the API's.
 */
@Injectable()
export class BlazarHooks {
  constructor(
    private readonly admission: LeaseAdmission,
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  /** Blazar asks before creating a lease; an admitted one is tracked (keyed by its name) and counts. */
  async checkCreate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const { context, lease: view } = parseBlazarCall(
      payload,
      false,
      requestId,
      this.config.ENFORCEMENT_REGION_NAME,
    );
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(view.name, view.id, requestId);
    let admitted = false;
    let decision: ChainDecision;
    try {
      decision = await this.ledger.underProjectLock(
        project,
        now,
        { blazar: view },
        async (tx, facts) => {
          const tracked = facts.tracked && isLive(facts.tracked) ? facts.tracked : undefined;
          const leaseId = tracked?.lease_id ?? randomUUID();
          context.apiLeaseId = leaseId;
          const live = liveExcludingItself(
            facts.live,
            tracked && { endDate: tracked.end_date },
            now,
          );
          const decision = await this.admission.checkCreate(context, view.lease, live);
          admitted = decision.allowed;
          const { status, reason } = decidedStatus(decision, view.lease, now);
          if (tracked) {
            const change = { ...this.change(view, now), status, status_reason: reason };
            const record = decisionOf(
              tracked.uid,
              project,
              tracked.lease_id,
              decision,
              now,
              'blazar',
              context,
            );
            await tx.changeLease(tracked.uid, change, record);
          } else {
            const uid = randomUUID();
            const row = this.newBlazarRow({ uid, project, leaseId }, context, view, now, {
              status,
              reason,
            });
            const record = decisionOf(uid, project, leaseId, decision, now, 'blazar', context);
            await tx.insertLease(row, record);
          }
          return decision;
        },
      );
    } catch (error) {
      if (admitted) await this.admission.aborted(error, context, view.lease, 'blazar', now);
      throw error;
    }
    if (decision.allowed) await this.enforcement.notifyCreated(context, view.lease);
    return decision.allowed
      ? { allowed: true }
      : { allowed: false, message: decision.denial!.message };
  }

  /**
   * Blazar asks before changing a lease; when allowed, the ledger's copy follows (or starts
   * tracking it). A change of nothing the filters decide on passes without them, as in Blazar.
   */
  async checkUpdate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const call = parseBlazarCall(payload, true, requestId, this.config.ENFORCEMENT_REGION_NAME);
    const { context, lease: view } = call;
    const current = call.current!;
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(current.name ?? view.name, current.id ?? view.id, requestId);
    const checked = updateNeedsChecks(current.lease, view.lease);
    const decision = await this.ledger.underProjectLock(
      project,
      now,
      { blazar: { id: current.id ?? view.id, name: current.name ?? view.name } },
      async (tx, facts) => {
        const existing = facts.tracked;
        const live = existing && isLive(existing) ? existing : undefined;
        const leaseId = live?.lease_id ?? randomUUID();
        context.apiLeaseId = leaseId;
        let decision = UNCHECKED_UPDATE;
        if (checked) {
          const chain = this.enforcement.chain({ countActive: async () => facts.live });
          decision = this.enforcement.decided(
            await chain.checkUpdate(context, current.lease, view.lease),
          );
        }
        if (!decision.allowed) {
          const subject = existing ?? { uid: randomUUID(), lease_id: '' };
          await tx.insertDecision(
            decisionOf(subject.uid, project, subject.lease_id, decision, now, 'blazar', context),
          );
          return decision;
        }
        const status = admittedStatus(view.lease, now);
        if (live) {
          const change = {
            ...this.change(view, now),
            status,
            status_reason: null,
            blazar_id: view.id ?? current.id ?? null,
          };
          const record = checked
            ? decisionOf(live.uid, project, live.lease_id, decision, now, 'blazar', context)
            : undefined;
          await tx.changeLease(live.uid, change, record);
        } else {
          // A lease this ledger did not hold: from now on it counts.
          const uid = randomUUID();
          const row = this.newBlazarRow({ uid, project, leaseId }, context, view, now, {
            status,
            reason: null,
            name: current.name,
            id: current.id,
          });
          await tx.insertLease(
            row,
            checked
              ? decisionOf(uid, project, leaseId, decision, now, 'blazar', context)
              : undefined,
          );
        }
        return decision;
      },
    );
    if (decision.allowed && checked)
      await this.enforcement.notifyUpdated(context, current.lease, view.lease);
    return decision.allowed
      ? { allowed: true }
      : { allowed: false, message: decision.denial!.message };
  }

  /** A Blazar lease this ledger starts to hold; Blazar's name and id, else those it had before. */
  private newBlazarRow(
    ids: { uid: string; project: string; leaseId: string },
    context: { userId?: string },
    view: BlazarLeaseView,
    now: Date,
    known: { status: LeaseStatus; reason: string | null; name?: string | null; id?: string | null },
  ): LeaseRow {
    const origin = {
      uid: ids.uid,
      project: ids.project,
      lease_id: ids.leaseId,
      origin: 'BLAZAR' as const,
      creator: context.userId || 'blazar',
      region_name: this.config.ENFORCEMENT_REGION_NAME,
    };
    return {
      ...newRow(origin, view.lease, known.status, known.reason, now),
      blazar_name: view.name ?? known.name ?? null,
      blazar_id: view.id ?? known.id ?? null,
    };
  }

  private change(view: BlazarLeaseView, now: Date): Omit<LeaseChange, 'status' | 'status_reason'> {
    return {
      name: view.lease.name,
      start_date: view.lease.startDate,
      end_date: view.lease.endDate,
      reservations: view.lease.reservations,
      update_time: now,
      blazar_name: view.name ?? null,
      blazar_id: view.id ?? null,
    };
  }
}
