import { Inject, Injectable } from '@nestjs/common';
import {
  CreateLeaseRequest,
  DeleteLeaseRequest,
  EndLeaseRequest,
  Lease,
  UpdateLeaseRequest,
} from '@rollout/contracts';
import {
  Clock,
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
import { Enforcement } from './enforcement';
import { LeaseWorkflow, idsOf, isLive } from './lease-workflow';
import type { LeaseRow } from './ledger-statements';
import { Ledger } from './ledger.repository';
import { OnEndOutbox } from './on-end-outbox';
import { domainLease, leaseView } from './views';

/** What the admission rules read of a ledger row. */
const held = (row: LeaseRow) => ({
  leaseId: row.lease_id,
  status: row.status,
  endDate: row.end_date,
});

/**
 * The commands on the API's leases (enforcement.v1). Creates of one project are serialised so
 * that MaxActiveLeases counts exactly (LeaseWorkflow.admit); each decision is written in the
 * transaction of the change it decided, and on_end goes out once per lease after the end commits.
 */
@Injectable()
export class LeaseCommands {
  constructor(
    private readonly ledger: Ledger,
    private readonly workflow: LeaseWorkflow,
    private readonly enforcement: Enforcement,
    private readonly onEnd: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(request: CreateLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const leaseId = newLeaseId(request.leaseId, randomUUID);
    const lease = leaseFromCreate(request.lease, leaseId, now);
    const uid = randomUUID();
    const context = this.workflow.context(project, actor, requestId, {
      leaseId: uid,
      apiLeaseId: leaseId,
    });
    const { row, decision } = await this.workflow.admit(
      project,
      context,
      lease,
      actor,
      now,
      { exists: leaseId },
      async (tx, facts, decide) => {
        if (facts.taken) throw leaseExists(project, leaseId);
        const decision = await decide(facts.live);
        const { status, reason } = decidedStatus(decision, lease, now);
        const row = this.workflow.newRow(
          uid,
          project,
          leaseId,
          'API',
          lease,
          status,
          reason,
          actor,
          now,
        );
        const [inserted] = await tx.commitWith([
          tx.insertLeaseSql(
            row,
            this.workflow.decisionOf(uid, project, leaseId, decision, now, actor, context),
          ),
        ]);
        return { row: inserted.rows[0] as LeaseRow, decision };
      },
    );
    if (!decision.allowed) throw deniedError(decision, project, leaseId);
    await this.workflow.notifyCreated(context, lease);
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
    const context = this.workflow.context(project, actor, requestId);
    const { row, decision, leaseId, change } = await this.ledger.transaction(async (tx) => {
      const current = await this.workflow.lockedLease(tx, project, request.leaseId);
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
          await this.workflow.countingChain(tx, now).checkUpdate(context, before, next),
          startedAt,
        );
        await tx.insertDecision(
          this.workflow.decisionOf(
            current.uid,
            project,
            current.lease_id,
            decision,
            now,
            actor,
            context,
          ),
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
    if (change) await this.workflow.notifyUpdated(context, change.before, change.next);
    return leaseView(row);
  }

  /** TERMINATED now, and on_end (once). Ending an ended lease changes nothing. */
  async end(request: EndLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const { row, queued } = await this.ledger.transaction(async (tx) => {
      const current = await this.workflow.lockedLease(tx, project, request.leaseId);
      if (endAction(project, held(current)) === 'unchanged')
        return { row: current, queued: undefined };
      const ended = await this.workflow.terminate(tx, current, now, `Ended by ${actor}.`);
      return {
        row: ended,
        queued: await this.onEnd.queue(
          tx,
          ended,
          this.workflow.context(project, actor, requestId, idsOf(ended)),
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
      const current = await this.workflow.lockedLease(tx, project, request.leaseId);
      const ended = isLive(current)
        ? await this.workflow.terminate(tx, current, now, `Deleted by ${actor}.`)
        : undefined;
      const queued =
        ended &&
        (await this.onEnd.queue(
          tx,
          ended,
          this.workflow.context(project, actor, requestId, idsOf(ended)),
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
