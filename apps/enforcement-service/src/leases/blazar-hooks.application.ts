import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BlazarVerdict, Clock } from '@rollout/contracts';
import {
  BlazarHookCall,
  ChainDecision,
  Hook,
  UNCHECKED_UPDATE,
  blazarSubject,
  decideBlazarCreate,
  decideBlazarEnd,
  decideBlazarUpdate,
  liveExcludingItself,
  readBlazarHook,
  recordOf,
  updateNeedsChecks,
} from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Enforcement } from '../chain/enforcement';
import { Ledger } from '../ledger/ledger.repository';
import { OnEndOutbox } from '../on-end/on-end-outbox.job';

const verdictOf = (decision: ChainDecision): BlazarVerdict =>
  decision.allowed ? { allowed: true } : { allowed: false, message: decision.denial!.message };

/** Blazar's leases are tracked by Blazar's name (or id) and count like the API's. */
@Injectable()
export class BlazarHooks {
  private readonly logger = new Logger('Leases');

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly onEndOutbox: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  async checkCreate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const call = this.read(payload, 'check_create', requestId);
    const { context, view, now } = call;
    let admitted = false;
    let decision: ChainDecision;
    try {
      decision = await this.ledger.underProjectLock(
        call.project,
        now,
        { blazar: call.key },
        async (unit, facts) => {
          const { live, leaseId } = blazarSubject(call, facts.tracked);
          context.apiLeaseId = leaseId;
          const count = liveExcludingItself(facts.live, live, now);
          const decision = await this.enforcement.checkCreate(context, view.lease, count);
          admitted = decision.allowed;
          await unit.apply(decideBlazarCreate(call, live, decision).changes);
          return decision;
        },
      );
    } catch (error) {
      if (admitted) await this.abortCreate(error, call);
      throw error;
    }
    if (decision.allowed) await this.enforcement.notifyCreated(context, view.lease);
    return verdictOf(decision);
  }

  /** A change of nothing the filters decide on passes without them, as in Blazar. */
  async checkUpdate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const call = this.read(payload, 'check_update', requestId);
    const { context, view, now } = call;
    const current = call.current!;
    const checked = updateNeedsChecks(current.lease, view.lease);
    const decision = await this.ledger.underProjectLock(
      call.project,
      now,
      { blazar: call.key },
      async (unit, facts) => {
        context.apiLeaseId = blazarSubject(call, facts.tracked).leaseId;
        const decision = checked
          ? await this.enforcement.checkUpdate(context, current.lease, view.lease)
          : UNCHECKED_UPDATE;
        await unit.apply(decideBlazarUpdate(call, facts.tracked, checked, decision).changes);
        return decision;
      },
    );
    if (decision.allowed && checked)
      await this.enforcement.notifyUpdated(context, current.lease, view.lease);
    return verdictOf(decision);
  }

  async onEnd(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const call = this.read(payload, 'on_end', requestId);
    const { context, view, now } = call;
    const queued = await this.ledger.unitOfWork(async (unit) => {
      const existing = await unit.lockBlazarLease(call.project, call.key);
      const { changes, ended } = decideBlazarEnd(call, existing);
      await unit.apply(changes);
      if (!ended) return undefined;
      context.apiLeaseId = ended.leaseId;
      // Blazar's view of the lease is what its filters hear about, as Blazar sends it.
      return this.onEndOutbox.queue(unit, ended, context, 'blazar', now, view.lease);
    });
    await this.onEndOutbox.deliver(queued);
    return { allowed: true };
  }

  private read(payload: unknown, hook: Hook, requestId: string): BlazarHookCall {
    return readBlazarHook(
      payload,
      hook,
      requestId,
      this.config.ENFORCEMENT_REGION_NAME,
      this.clock.now(),
      { uid: randomUUID(), leaseId: randomUUID() },
    );
  }

  /** Never throws. */
  private async abortCreate(error: unknown, call: BlazarHookCall): Promise<void> {
    const { project } = call;
    this.logger.warn(
      { err: error, project },
      'create failed after the checks passed; sending on_end',
    );
    try {
      const decision = await this.enforcement.abortCreate(call.context, call.view.lease);
      await this.ledger.record(
        recordOf({ uid: randomUUID(), project, leaseId: '' }, decision, call),
      );
    } catch (failure) {
      this.logger.error({ err: failure, project }, 'recording an aborted create failed');
    }
  }
}
