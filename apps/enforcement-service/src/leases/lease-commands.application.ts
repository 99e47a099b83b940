import { Inject, Injectable } from '@nestjs/common';
import {
  type Clock,
  CreateLeaseRequest,
  DeleteLeaseRequest,
  EndLeaseRequest,
  Lease,
  UpdateLeaseRequest,
} from '@rollout/contracts';
import {
  ChainDecision,
  UNCHECKED_UPDATE,
  admittedStatus,
  checkActor,
  checkProject,
  checkUpdatable,
  decidedStatus,
  deniedError,
  endAction,
  leaseExists,
  leaseFromCreate,
  leaseFromUpdate,
  newLeaseId,
  updateNeedsChecks,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/platform/service-kit';
import { Enforcement } from '../chain/enforcement';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { LeaseAdmission } from './lease-admission';
import {
  decisionOf,
  idsOf,
  isLive,
  leaseContext,
  lockedLease,
  newRow,
  terminate,
} from './lease-records';
import { type LeaseRow, domainLease } from '../ledger/ledger-statements';
import { Ledger } from '../ledger/ledger.repository';
import { OnEndOutbox } from '../on-end/on-end-outbox.job';
import { leaseView } from './views';

/** What the admission rules read of a ledger row. */
const held = (row: LeaseRow) => ({
  leaseId: row.lease_id,
  status: row.status,
  endDate: row.end_date,
});

/**
 * The commands on the API's leases (enforcement.v1). Creates of one project are serialised so
 * that MaxActiveLeases counts exactly (Ledger.underProjectLock); each decision is written in the
 * transaction of the change it decided, and on_end goes out once per lease after the end commits.
 */
@Injectable()
export class LeaseCommands {
  constructor(
    private readonly ledger: Ledger,
    private readonly admission: LeaseAdmission,
    private readonly enforcement: Enforcement,
    private readonly onEnd: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  async create(request: CreateLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const leaseId = newLeaseId(request.leaseId, randomUUID);
    const lease = leaseFromCreate(request.lease, leaseId, now);
    const uid = randomUUID();
    const context = leaseContext(this.config.ENFORCEMENT_REGION_NAME, project, actor, requestId, {
      leaseId: uid,
      apiLeaseId: leaseId,
    });
    let admitted = false;
    let written: { row: LeaseRow; decision: ChainDecision };
    try {
      written = await this.ledger.underProjectLock(
        project,
        now,
        { exists: leaseId },
        async (tx, facts) => {
          if (facts.taken) throw leaseExists(project, leaseId);
          const decision = await this.admission.checkCreate(context, lease, facts.live);
          admitted = decision.allowed;
          const { status, reason } = decidedStatus(decision, lease, now);
          const row = newRow(
            {
              uid,
              project,
              lease_id: leaseId,
              origin: 'API',
              creator: actor,
              region_name: this.config.ENFORCEMENT_REGION_NAME,
            },
            lease,
            status,
            reason,
            now,
          );
          const record = decisionOf(uid, project, leaseId, decision, now, actor, context);
          return { row: await tx.insertLease(row, record), decision };
        },
      );
    } catch (error) {
      if (admitted) await this.admission.aborted(error, context, lease, actor, now);
      throw error;
    }
    const { row, decision } = written;
    if (!decision.allowed) throw deniedError(decision, project, leaseId);
    await this.enforcement.notifyCreated(context, lease);
    return leaseView(row);
  }

  /**
   * The fields present replace the lease's; a refusal leaves it exactly as it was. An update
   * that changes neither dates nor reservations runs no filter (Blazar's rule, see
   * updateNeedsChecks) and leaves no decision.
   */
  async update(request: UpdateLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const context = leaseContext(this.config.ENFORCEMENT_REGION_NAME, project, actor, requestId);
    const { row, decision, leaseId, change } = await this.ledger.transaction(async (tx) => {
      const current = await lockedLease(tx, project, request.leaseId);
      Object.assign(context, idsOf(current));
      checkUpdatable(project, held(current), now);
      const before = domainLease(current);
      const next = leaseFromUpdate(
        request.lease,
        before,
        current.start_date.getTime() <= now.getTime(),
        now,
      );
      const checked = updateNeedsChecks(before, next);
      let decision = UNCHECKED_UPDATE;
      if (checked) {
        const startedAt = process.hrtime.bigint();
        decision = this.enforcement.decided(
          await this.enforcement
            .chain({ countActive: (project) => tx.countLive(project, now) })
            .checkUpdate(context, before, next),
          startedAt,
        );
        await tx.insertDecision(
          decisionOf(current.uid, project, current.lease_id, decision, now, actor, context),
        );
        if (!decision.allowed)
          return { row: current, decision, leaseId: current.lease_id, change: undefined };
      }
      const updated = await tx.changeLease(current.uid, {
        name: next.name,
        start_date: next.startDate,
        end_date: next.endDate,
        reservations: next.reservations,
        status: admittedStatus(next, now),
        status_reason: null,
        update_time: now,
      });
      return {
        row: updated,
        decision,
        leaseId: current.lease_id,
        change: checked ? { before, next } : undefined,
      };
    });
    if (!decision.allowed) throw deniedError(decision, project, leaseId);
    if (change) await this.enforcement.notifyUpdated(context, change.before, change.next);
    return leaseView(row);
  }

  /** TERMINATED now, and on_end (once). Ending an ended lease changes nothing. */
  async end(request: EndLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const { row, queued } = await this.ledger.transaction(async (tx) => {
      const current = await lockedLease(tx, project, request.leaseId);
      if (endAction(project, held(current)) === 'unchanged')
        return { row: current, queued: undefined };
      const ended = await terminate(tx, current, now, `Ended by ${actor}.`);
      return {
        row: ended,
        queued: await this.onEnd.queue(
          tx,
          ended,
          leaseContext(
            this.config.ENFORCEMENT_REGION_NAME,
            project,
            actor,
            requestId,
            idsOf(ended),
          ),
          actor,
          now,
        ),
      };
    });
    await this.onEnd.deliver(queued);
    return leaseView(row);
  }

  /** Deletes the lease; a live one is ended first (on_end). Its decisions stay in the ledger. */
  async delete(request: DeleteLeaseRequest, requestId: string): Promise<Record<string, never>> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const queued = await this.ledger.transaction(async (tx) => {
      const current = await lockedLease(tx, project, request.leaseId);
      const ended = isLive(current)
        ? await terminate(tx, current, now, `Deleted by ${actor}.`)
        : undefined;
      const queued =
        ended &&
        (await this.onEnd.queue(
          tx,
          ended,
          leaseContext(
            this.config.ENFORCEMENT_REGION_NAME,
            project,
            actor,
            requestId,
            idsOf(ended),
          ),
          actor,
          now,
        ));
      await tx.deleteLease(current.uid);
      return queued;
    });
    await this.onEnd.deliver(queued);
    return {};
  }
}
