import { Logger } from '@nestjs/common';
import { DeadLetterLogSample, DeadLetterLogSummariser } from '@rollout/domain/preview';

/** docs/operations.md greps for it. */
export const DEAD_LETTER_LOG_MESSAGE = 'traffic messages dead-lettered';

/** One WARN line per interval, not per message: a flood of bad events stays a few lines. */
export class DeadLetterLog {
  private readonly logger = new Logger('DeadLetters');
  private readonly summariser: DeadLetterLogSummariser;
  private timer?: NodeJS.Timeout;

  constructor(intervalMs: number, now: () => number = Date.now) {
    this.summariser = new DeadLetterLogSummariser(now, { intervalMs, maxSamples: 3 });
    // Checked every second (or interval, if shorter), so a line comes soon after it is due.
    this.timer = setInterval(() => this.write(this.summariser.due()), Math.min(intervalMs, 1_000));
    this.timer.unref();
  }

  note(sample: DeadLetterLogSample): void {
    this.write(this.summariser.note(sample));
  }

  stop(): void {
    clearInterval(this.timer);
    this.write(this.summariser.flush());
  }

  private write(summary: ReturnType<DeadLetterLogSummariser['flush']>): void {
    if (!summary) return;
    this.logger.warn(
      {
        deadLettered: summary.total,
        byReason: summary.byReason,
        samples: summary.samples,
        since: summary.since,
      },
      `${summary.total} ${DEAD_LETTER_LOG_MESSAGE}`,
    );
  }
}
