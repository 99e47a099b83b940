import { Injectable, Logger } from '@nestjs/common';
import { ChainDecision, EnforcementContext, LeaseRequest } from '@rollout/domain/enforcement';
import { randomUUID } from 'node:crypto';
import { Enforcement } from '../chain/enforcement';
import type { CountingFacts } from '../ledger/ledger-statements';
import { CountingProbe, CountingTx, Ledger } from '../ledger/ledger.repository';
import { decisionOf } from './lease-records';

/**
 * Create decisions (the API's creates and Blazar's check_create): MaxActiveLeases answered from
 * the count read after the project's lock. If anything fails after the checks passed, the
 * filters hear the create was aborted, so that budget-keeping filters can refund.
 */
@Injectable()
export class LeaseAdmission {
  private readonly logger = new Logger('Leases');

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
  ) {}

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
      return await this.ledger.counting(project, now, probe, (tx, facts) =>
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
        decisionOf(randomUUID(), context.projectId, '', decision, now, actor, context),
      );
    } catch (error) {
      this.logger.error(
        { err: error, project: context.projectId },
        'recording an aborted create failed',
      );
    }
  }
}
