import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type Clock,
  CreateLeaseRequest,
  DeleteLeaseRequest,
  EndLeaseRequest,
  Lease as ApiLease,
  UpdateLeaseRequest,
} from '@rollout/contracts';
import {
  ChainDecision,
  EnforcementContext,
  HookCall,
  Lease,
  LeaseRequest,
  UNCHECKED_UPDATE,
  checkActor,
  checkProject,
  contextOf,
  decideCreate,
  decideDelete,
  decideEnd,
  decideUpdate,
  deniedError,
  isLookupId,
  leaseExists,
  leaseFromCreate,
  leaseNotFound,
  newLeaseId,
  proposeUpdate,
  recordOf,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/platform/service-kit';
import { Enforcement } from '../chain/enforcement';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Ledger, LedgerUnit } from '../ledger/ledger.repository';
import { OnEndOutbox } from '../on-end/on-end-outbox.job';
import { leaseView } from './views';

/** Creates of one project are serialised so that MaxActiveLeases counts exactly; on_end goes out once per lease. */
@Injectable()
export class LeaseCommands {
  private readonly logger = new Logger('Leases');

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly onEnd: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  async create(request: CreateLeaseRequest, requestId: string): Promise<ApiLease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const leaseId = newLeaseId(request.leaseId, randomUUID);
    const lease = leaseFromCreate(request.lease, leaseId, now);
    const uid = randomUUID();
    const regionName = this.config.ENFORCEMENT_REGION_NAME;
    const context: EnforcementContext = {
      userId: actor,
      projectId: project,
      regionName,
      requestId,
      adapterLeaseId: uid,
      apiLeaseId: leaseId,
    };
    const call: HookCall = { actor, context, now };
    const ids = { uid, leaseId, project, origin: 'API' as const, creator: actor, regionName };
    let admitted = false;
    let outcome: { written: Lease; decision: ChainDecision };
    try {
      outcome = await this.ledger.underProjectLock(
        project,
        now,
        { exists: leaseId },
        async (unit, facts) => {
          if (facts.taken) throw leaseExists(project, leaseId);
          const decision = await this.enforcement.checkCreate(context, lease, facts.live);
          admitted = decision.allowed;
          const decided = decideCreate(ids, lease, decision, call);
          await unit.apply(decided.changes);
          return { written: decided.lease, decision };
        },
      );
    } catch (error) {
      if (admitted) await this.abortCreate(error, call, lease);
      throw error;
    }
    const { written, decision } = outcome;
    if (!decision.allowed) throw deniedError(decision, project, leaseId);
    await this.enforcement.notifyCreated(context, lease);
    return leaseView(written);
  }

  /** An update that changes neither dates nor reservations runs no filter (see updateNeedsChecks) and leaves no decision. */
  async update(request: UpdateLeaseRequest, requestId: string): Promise<ApiLease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const { decided, decision, context, proposed } = await this.ledger.unitOfWork(async (unit) => {
      const current = await this.locked(unit, project, request.leaseId);
      const context = this.contextOf(current, actor, requestId);
      const proposed = proposeUpdate(current, request.lease, now);
      const decision = proposed.checked
        ? await this.enforcement.checkUpdate(context, proposed.before, proposed.next)
        : UNCHECKED_UPDATE;
      const decided = decideUpdate(current, proposed, decision, { actor, context, now });
      await unit.apply(decided.changes);
      return { decided, decision, context, proposed };
    });
    if (!decision.allowed) throw deniedError(decision, project, decided.lease.leaseId);
    if (proposed.checked)
      await this.enforcement.notifyUpdated(context, proposed.before, proposed.next);
    return leaseView(decided.lease);
  }

  async end(request: EndLeaseRequest, requestId: string): Promise<ApiLease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const { lease, queued } = await this.ledger.unitOfWork(async (unit) => {
      const current = await this.locked(unit, project, request.leaseId);
      const { changes, lease, ended } = decideEnd(current, `Ended by ${actor}.`, now);
      await unit.apply(changes);
      return {
        lease,
        queued: ended && (await this.queueOnEnd(unit, ended, actor, requestId, now)),
      };
    });
    await this.onEnd.deliver(queued);
    return leaseView(lease);
  }

  async delete(request: DeleteLeaseRequest, requestId: string): Promise<Record<string, never>> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const queued = await this.ledger.unitOfWork(async (unit) => {
      const current = await this.locked(unit, project, request.leaseId);
      const { changes, ended } = decideDelete(current, `Deleted by ${actor}.`, now);
      await unit.apply(changes);
      return ended && this.queueOnEnd(unit, ended, actor, requestId, now);
    });
    await this.onEnd.deliver(queued);
    return {};
  }

  private contextOf(lease: Lease, actor: string, requestId: string): EnforcementContext {
    return contextOf(lease, {
      userId: actor,
      regionName: this.config.ENFORCEMENT_REGION_NAME,
      requestId,
    });
  }

  private queueOnEnd(unit: LedgerUnit, ended: Lease, actor: string, requestId: string, now: Date) {
    return this.onEnd.queue(unit, ended, this.contextOf(ended, actor, requestId), actor, now);
  }

  private async locked(unit: LedgerUnit, project: string, leaseId: unknown): Promise<Lease> {
    const lease = isLookupId(leaseId) ? await unit.lockLease(project, leaseId) : undefined;
    if (!lease) throw leaseNotFound(project, leaseId);
    return lease;
  }

  /** Never throws. */
  private async abortCreate(error: unknown, call: HookCall, lease: LeaseRequest): Promise<void> {
    const project = call.context.projectId;
    this.logger.warn(
      { err: error, project },
      'create failed after the checks passed; sending on_end',
    );
    try {
      const decision = await this.enforcement.abortCreate(call.context, lease);
      await this.ledger.record(
        recordOf({ uid: randomUUID(), project, leaseId: '' }, decision, call),
      );
    } catch (failure) {
      this.logger.error({ err: failure, project }, 'recording an aborted create failed');
    }
  }
}
