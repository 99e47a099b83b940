import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import { AdapterStatus, RetryPolicy, isOk } from '@rollout/domain/enforcement';
import { backoffMs, type BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { deliveryRetries } from '../delivery-retries';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { AdapterClient } from './adapter-client';
import { SessionClosesRepository } from './session-closes.repository';

/** How long a CloseSession waits for its answer. */
export const CLOSE_TIMEOUT_MS = 2_000;
/** Closes claimed per pass: tried one by one within the claim (see session-closes.repository). */
const BATCH = 10;

interface CloseRetry {
  attempts: number;
  nextAttemptAt: Date;
  lastError: string;
}

/**
 * The adapter's answer to CloseSession: `closed` acknowledged; `unknown` the adapter does not know
 * the session (adapter.v1 answers FAILED_PRECONDITION, or NOT_FOUND, for a session it never made,
 * closed already, or lost with its state), so nothing is left open; `retry` anything else.
 */
function outcomeOf(status: AdapterStatus | undefined): 'closed' | 'unknown' | 'retry' {
  if (isOk(status)) return 'closed';
  return status?.status === 'FAILED_PRECONDITION' || status?.status === 'NOT_FOUND'
    ? 'unknown'
    : 'retry';
}

/**
 * Closes adapter sessions so that none stays open at the adapter once its handler moved on (a
 * config change, shutdown). A CloseSession that is not acknowledged (the adapter is down, slow, or
 * answers an error) is written to `adapter_session_closes` and tried again with back-off, across
 * restarts, until the adapter acknowledges it or says it does not know the session. Replicas
 * share the retries: each claims due closes for a while (by time, no lock held across the call).
 */
@Injectable()
export class SessionCloses implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AdapterSessions');
  private readonly policy: RetryPolicy;
  private readonly retries: BackgroundLoop;

  constructor(
    private readonly closes: SessionClosesRepository,
    private readonly client: AdapterClient,
    private readonly metrics: EnforcementMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) config: Config,
  ) {
    ({ policy: this.policy, loop: this.retries } = deliveryRetries(
      'SessionCloses',
      config,
      Number.POSITIVE_INFINITY,
      () => this.drainDue(),
    ));
  }

  onApplicationBootstrap(): void {
    this.retries.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.retries.stop();
  }

  /** CloseSession now; when it is not acknowledged, kept for the retries. Never throws. */
  async close(handler: string, adapter: string, sessionId: string): Promise<void> {
    const why = await this.attempt(adapter, sessionId);
    if (why === undefined) return;
    try {
      const retry = this.retryAfter(1, why);
      await this.closes.enqueue(
        { adapter, session_id: sessionId, handler },
        retry.nextAttemptAt,
        this.clock.now(),
        retry,
      );
      this.logger.warn(
        { handler, adapter, session: sessionId, reason: why },
        'CloseSession not acknowledged; will retry',
      );
    } catch (error) {
      this.logger.error(
        { err: error, handler, adapter, session: sessionId },
        'CloseSession not acknowledged and could not be kept for a retry',
      );
    }
  }

  /** One pass of the retries: every due close claimed by this replica (up to BATCH), tried once. */
  async drainDue(): Promise<void> {
    const due = await this.closes.claimDue(this.clock.now(), BATCH);
    for (const row of due) {
      const key = { adapter: row.adapter, session_id: row.session_id };
      const why = await this.attempt(row.adapter, row.session_id);
      if (why === undefined) await this.closes.done(key);
      else {
        const retry = this.retryAfter(row.attempts + 1, why);
        await this.closes.retryAt(key, retry, retry.nextAttemptAt);
      }
    }
  }

  private retryAfter(attempts: number, why: string): CloseRetry {
    return {
      attempts,
      nextAttemptAt: new Date(this.clock.now().getTime() + backoffMs(attempts, this.policy)),
      lastError: why,
    };
  }

  /** One CloseSession; undefined when the session is closed for good, else why not. */
  private async attempt(adapter: string, sessionId: string): Promise<string | undefined> {
    let outcome: 'closed' | 'unknown' | 'retry';
    let why: string | undefined;
    try {
      const reply = await this.client.call<{ status?: AdapterStatus }>(
        adapter,
        'closeSession',
        { sessionId },
        CLOSE_TIMEOUT_MS,
      );
      outcome = outcomeOf(reply.status);
      if (outcome === 'retry')
        why =
          `CloseSession answered ${reply.status?.status ?? 'no status'} ${reply.status?.message ?? ''}`.trim();
    } catch (error) {
      outcome = 'retry';
      why = error instanceof Error ? error.message : String(error);
    }
    this.metrics.sessionClose(adapter, outcome);
    return why;
  }
}
