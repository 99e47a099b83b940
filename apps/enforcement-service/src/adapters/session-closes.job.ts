import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import { AdapterStatus, isOk } from '@rollout/domain/enforcement';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Attempted, DeliveryJob } from '../delivery-job';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { AdapterClient } from './adapter-client';
import { PendingClose, SessionClosesRepository } from './session-closes.repository';

export const CLOSE_TIMEOUT_MS = 2_000;
/** adapter.v1 answers FAILED_PRECONDITION or NOT_FOUND for a session it never made, closed, or lost: nothing is left open. */
function outcomeOf(status: AdapterStatus | undefined): 'closed' | 'unknown' | 'retry' {
  if (isOk(status)) return 'closed';
  return status?.status === 'FAILED_PRECONDITION' || status?.status === 'NOT_FOUND'
    ? 'unknown'
    : 'retry';
}

/**
 * So that no session stays open at the adapter once its handler moved on. An unacknowledged close
 * is retried from `adapter_session_closes` across restarts, replicas claiming due rows by time.
 */
@Injectable()
export class SessionCloses extends DeliveryJob<PendingClose> {
  private readonly logger = new Logger('AdapterSessions');

  constructor(
    private readonly closes: SessionClosesRepository,
    private readonly client: AdapterClient,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) config: Config,
  ) {
    // Ten closes a pass, tried one by one within their claim (see session-closes.repository).
    super(closes, clock, config, {
      name: 'SessionCloses',
      maxAttempts: Number.POSITIVE_INFINITY,
      batch: 10,
      batchesPerPass: 1,
    });
  }

  /** Never throws. */
  async close(handler: string, adapter: string, sessionId: string): Promise<void> {
    const close: PendingClose = { adapter, sessionId, handler, attempts: 0 };
    const { failure } = await this.attempt(close);
    if (failure === undefined) return;
    try {
      const retry = { attempts: 1, lastError: failure };
      await this.closes.enqueue(close, retry, this.nextAttemptAt(1), this.clock.now());
      this.logger.warn(
        { handler, adapter, session: sessionId, reason: failure },
        'CloseSession not acknowledged; will retry',
      );
    } catch (error) {
      this.logger.error(
        { err: error, handler, adapter, session: sessionId },
        'CloseSession not acknowledged and could not be kept for a retry',
      );
    }
  }

  protected async attempt({ adapter, sessionId }: PendingClose): Promise<Attempted> {
    let outcome: 'closed' | 'unknown' | 'retry';
    let failure: string | undefined;
    try {
      const reply = await this.client.call<{ status?: AdapterStatus }>(
        adapter,
        'closeSession',
        { sessionId },
        CLOSE_TIMEOUT_MS,
      );
      outcome = outcomeOf(reply.status);
      if (outcome === 'retry')
        failure =
          `CloseSession answered ${reply.status?.status ?? 'no status'} ${reply.status?.message ?? ''}`.trim();
    } catch (error) {
      outcome = 'retry';
      failure = error instanceof Error ? error.message : String(error);
    }
    this.metrics.sessionClose(adapter, outcome);
    return { failure };
  }
}
