import { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import { type RetryPolicy, mayRetry } from '@rollout/domain/enforcement';
import { BackgroundLoop, backoffMs } from '@rollout/platform/runtime';
import { BACKGROUND_MAX_FAILURE_DELAY_MS, Config } from './config';

export interface Attempted {
  failure?: string;
  owed?: string[];
}

export interface Retry {
  attempts: number;
  lastError: string;
  owed?: string[];
}

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
  /** A pass that finds more goes on at the next. */
  batchesPerPass: number;
}

/** The on_end outbox and the adapter session closes: claim due items by time, try each once, back off or give up. */
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
