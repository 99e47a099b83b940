import { Inject, Injectable, Optional } from '@nestjs/common';
import { CountingWindow, WindowedBatch } from '@rollout/domain/preview';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { Counter, Registry } from 'prom-client';
import { Config, EVALUATOR_CONFIG } from '../config';
import { PreviewCountsRepository } from './preview-counts.repository';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: one window counted at a time per replica; a batch's messages are acknowledged
 * only once its window is committed.
 */
@Injectable()
export class CountingWindows {
  private open = new CountingWindow();
  private waiters: Waiter[] = [];
  private openedAt = 0;
  private timer?: NodeJS.Timeout;
  private counting?: CountingWindow;

  private readonly metrics?: { windows: Counter; batches: Counter; rows: Counter };

  constructor(
    private readonly store: PreviewCountsRepository,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    if (registry) {
      const registers = [registry];
      this.metrics = {
        windows: new Counter({
          name: 'evaluator_counting_windows_total',
          help: 'Counting transactions committed (one per window of batches).',
          registers,
        }),
        batches: new Counter({
          name: 'evaluator_counting_batches_total',
          help: 'Batches of traffic messages counted, over all windows.',
          registers,
        }),
        rows: new Counter({
          name: 'evaluator_counting_rows_total',
          help: 'Rows the counting transactions inserted or updated in the preview store.',
          registers,
        }),
      };
    }
  }

  count(batch: WindowedBatch): Promise<void> {
    if (batch.countedSeqs.length === 0) return Promise.resolve();
    if (this.open.overlaps(batch.countedSeqs) || this.counting?.overlaps(batch.countedSeqs)) {
      // Counted again once the first delivery's window is committed (the counted check skips it).
      return Promise.reject(
        new Error('a message of this batch waits in a counting window already; tried again later'),
      );
    }
    if (this.open.batches === 0) this.openedAt = performance.now();
    this.open.add(batch);
    const committed = new Promise<void>((resolve, reject) =>
      this.waiters.push({ resolve, reject }),
    );
    this.commitIfDue();
    return committed;
  }

  private commitIfDue(): void {
    if (this.counting || this.open.batches === 0) return;
    const age = performance.now() - this.openedAt;
    const waiting = this.waiters.length;
    const due =
      age >= this.config.EVALUATOR_WINDOW_MS ||
      this.open.events >= this.config.EVALUATOR_WINDOW_EVENTS ||
      // Half the batches in flight wait here: the other half is evaluated while this one is counted.
      waiting >= Math.max(1, Math.floor(this.config.EVALUATOR_CONCURRENCY / 2));
    if (!due) {
      this.timer ??= setTimeout(
        () => {
          this.timer = undefined;
          this.commitIfDue();
        },
        Math.max(1, this.config.EVALUATOR_WINDOW_MS - age),
      );
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const window = (this.counting = this.open);
    const waiters = this.waiters;
    this.open = new CountingWindow();
    this.waiters = [];
    this.store
      .count(window.counting)
      .then(
        ({ rows }) => {
          this.metrics?.windows.inc();
          this.metrics?.batches.inc(window.batches);
          this.metrics?.rows.inc(rows);
          waiters.forEach((w) => w.resolve());
        },
        (error: unknown) => waiters.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.counting = undefined;
        this.commitIfDue();
      });
  }
}
