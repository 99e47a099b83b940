import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Clock } from '@rollout/contracts';
import { contextOf } from '@rollout/domain/enforcement';
import { BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { BACKGROUND_MAX_FAILURE_DELAY_MS, Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Ledger } from '../ledger/ledger.repository';
import { OnEndOutbox, QueuedOnEnd } from '../on-end/on-end-outbox.job';

const SWEEP_BATCH = 100;

@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly ledger: Ledger,
    private readonly onEnd: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) config: Config,
  ) {
    this.loop = new BackgroundLoop({
      name: 'LeaseSweep',
      turn: () => this.sweep(),
      intervalMs: config.ENFORCEMENT_SWEEP_INTERVAL_MS,
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

  /** SKIP LOCKED, so replicas share the work. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    await this.ledger.activateStarted(now);
    for (;;) {
      const queued = await this.ledger.unitOfWork(async (unit) => {
        const ended = await unit.claimEnded(now, SWEEP_BATCH);
        const queued: Array<QueuedOnEnd | undefined> = [];
        for (const lease of ended) {
          const context = contextOf(lease, {
            userId: lease.creator,
            regionName: lease.regionName,
            requestId: `end-date-${lease.uid}`,
          });
          queued.push(await this.onEnd.queue(unit, lease, context, 'system', now));
        }
        return queued;
      });
      for (const entry of queued) await this.onEnd.deliver(entry);
      if (queued.length < SWEEP_BATCH) return;
    }
  }
}
