import { Injectable, Logger } from '@nestjs/common';
import { ChainDecision, EnforcementContext, LeaseRequest } from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { Enforcement } from '../chain/enforcement';
import { Ledger } from '../ledger/ledger.repository';
import { decisionOf } from './lease-records';

/**
 * The two halves of a create decision (the API's creates and Blazar's check_create) around the
 * use case's own unit of work: the chain with MaxActiveLeases answered from the count read under
 * the project's lock, and, when a create the filters admitted could not be written, the abort
 * that lets budget-keeping filters refund.
 */
@Injectable()
export class LeaseAdmission {
  private readonly logger = new Logger('Leases');

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
  ) {}

  /** The chain's check_create, `live` being the project's live leases counted under its lock. */
  async checkCreate(
    context: EnforcementContext,
    lease: LeaseRequest,
    live: number,
  ): Promise<ChainDecision> {
    const startedAt = process.hrtime.bigint();
    return this.enforcement.decided(
      await this.enforcement.chain({ countActive: async () => live }).checkCreate(context, lease),
      startedAt,
    );
  }

  /** An admitted create that could not be written: filters give back what they took (no lease, nothing to retry); never throws. */
  async aborted(
    error: unknown,
    context: EnforcementContext,
    lease: LeaseRequest,
    actor: string,
    now: Date,
  ): Promise<void> {
    this.logger.warn(
      { err: error, project: context.projectId },
      'create failed after the checks passed; sending on_end',
    );
    try {
      const decision = this.enforcement.decided(
        await this.enforcement.onEndChain.abortCreate(context, lease),
      );
      await this.ledger.insertDecision(
        decisionOf(randomUUID(), context.projectId, '', decision, now, actor, context),
      );
    } catch (failure) {
      this.logger.error(
        { err: failure, project: context.projectId },
        'recording an aborted create failed',
      );
    }
  }
}
