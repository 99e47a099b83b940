import { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import { type RetryPolicy, mayRetry } from '@rollout/domain/enforcement';
import { BackgroundLoop, backoffMs } from '@rollout/platform/runtime';
import { BACKGROUND_MAX_FAILURE_DELAY_MS, Config } from './config';

/** One attempt's result: delivered (no `failure`), or why not and to whom it is still owed. */
export interface Attempted {
  failure?: string;
  owed?: string[];
}

/** How an item that was not delivered goes on. */
export interface Retry {
  attempts: number;
  lastError: string;
  owed?: string[];
}

/** A durable delivery's table, in the job's terms: items claimed by time, then settled. */
export interface DeliveryStore<Item> {
  claimDue(now: Date, limit: number): Promise<Item[]>;
  done(item: Item): Promise<void>;
  retryAt(item: Item, retry: Retry, at: Date): Promise<void>;
  abandon(item: Item, retry: Retry, at: Date): Promise<void>;
}

export type Settled = 'done' | 'retry' | 'abandoned';

export interface DeliveryJobOptions {
  name: string;
  maxAttempts: number;
  batch: number;
  /** Batches claimed per pass at most: a pass that finds more goes on at the next. */
  batchesPerPass: number;
}

/**
 * The shell of the service's durable deliveries (the on_end outbox, the adapter session closes):
 * a loop that claims the due items every poll interval and tries each once, and what follows a
 * try: done, tried again with exponential back-off, or given up after the last attempt.
 */
export abstract class DeliveryJob<Item extends { attempts: number }>
  implements OnApplicationBootstrap, OnModuleDestroy
{
  protected readonly policy: RetryPolicy;
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly store: DeliveryStore<Item>,
    protected readonly clock: Clock,
    config: Config,
    private readonly options: DeliveryJobOptions,
  ) {
    this.policy = {
      baseMs: config.ENFORCEMENT_RETRY_BASE_MS,
      maxMs: config.ENFORCEMENT_RETRY_MAX_MS,
      maxAttempts: options.maxAttempts,
    };
    this.loop = new BackgroundLoop({
      name: options.name,
      turn: () => this.drainDue(),
      intervalMs: config.ENFORCEMENT_RETRY_POLL_INTERVAL_MS,
      firstTurnAfterInterval: true,
      maxFailureDelayMs: BACKGROUND_MAX_FAILURE_DELAY_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass: the due items this replica claims, each tried once and settled. */
  async drainDue(): Promise<void> {
    const { batch, batchesPerPass } = this.options;
    for (let batches = 0; batches < batchesPerPass; batches++) {
      const claimed = await this.store.claimDue(this.clock.now(), batch);
      for (const item of claimed) await this.settle(item, await this.attempt(item));
      if (claimed.length < batch) break;
    }
    await this.afterPass();
  }

  protected abstract attempt(item: Item): Promise<Attempted>;

  protected async afterPass(): Promise<void> {}

  /** Done, tried again later, or given up; what it came to. */
  protected async settle(item: Item, attempted: Attempted): Promise<Settled> {
    if (attempted.failure === undefined) {
      await this.store.done(item);
      return 'done';
    }
    const attempts = item.attempts + 1;
    const retry: Retry = { attempts, lastError: attempted.failure, owed: attempted.owed };
    if (!mayRetry(this.policy, attempts)) {
      await this.store.abandon(item, retry, this.clock.now());
      return 'abandoned';
    }
    await this.store.retryAt(item, retry, this.nextAttemptAt(attempts));
    return 'retry';
  }

  protected nextAttemptAt(attempts: number): Date {
    return new Date(this.clock.now().getTime() + backoffMs(attempts, this.policy));
  }
}
