import type { JetStreamClient } from 'nats';

export interface PublishCounts {
  published: number;
  /** Already held under the same Nats-Msg-Id (a re-import). */
  duplicates: number;
}

/** `acked` runs once JetStream stored the event (or had it), which is when its position may be saved. */
export class Publisher {
  private inFlight = 0;
  private wake?: () => void;
  failure?: unknown;

  constructor(
    private readonly js: JetStreamClient,
    private readonly maxInFlight: number,
    private readonly counts: PublishCounts,
  ) {}

  async publish(subject: string, msgID: string, data: string, acked: () => void): Promise<void> {
    while (this.inFlight >= this.maxInFlight)
      await new Promise<void>((resolve) => (this.wake = resolve));
    this.inFlight++;
    this.js
      .publish(subject, data, { msgID })
      .then(
        (ack) => {
          if (ack.duplicate) this.counts.duplicates++;
          else this.counts.published++;
          acked();
        },
        (error: unknown) => (this.failure ??= error),
      )
      .finally(() => {
        this.inFlight--;
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
      });
  }

  async drained(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.wake = resolve));
  }
}
