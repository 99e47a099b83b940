import { Logger } from '@nestjs/common';
import { Sleeper } from './sleeper';
import { backoffMs } from './backoff';

/** Tests pass their own pauses to step through them without waiting. */
export interface Pauses {
  sleep(ms: number): Promise<void>;
  wakeAll(): void;
}

/** `more`: the next turn runs at once; `done`: the loop ends. */
export type TurnOutcome = 'more' | 'idle' | 'done';

export interface BackgroundLoopOptions {
  name: string;
  /** Throwing counts as a failure and backs off. */
  turn(): Promise<TurnOutcome | void>;
  intervalMs: number;
  /** By default the first turn runs at start. */
  firstTurnAfterInterval?: boolean;
  /** Default intervalMs, doubling per failure in a row up to maxFailureDelayMs. */
  failureDelayMs?: number;
  maxFailureDelayMs?: number;
  /** A few ms let a burst of wakes share one turn. */
  wakeDelayMs?: number;
  /** Ends a turn that waits on something else (a subscription, say). */
  interrupt?(): void;
  drain?(): Promise<void>;
  onFailure?(error: unknown, failures: number): void;
  sleeper?: Pauses;
}

export class BackgroundLoop {
  private readonly logger: Logger;
  private readonly sleeper: Pauses;
  private running = false;
  private loop?: Promise<void>;
  private stopped?: Promise<void>;
  private stopSignal!: () => void;
  private readonly stopRequested = new Promise<void>((resolve) => (this.stopSignal = resolve));
  private woken = false;
  private pausingMs?: number;

  constructor(private readonly options: BackgroundLoopOptions) {
    this.logger = new Logger(options.name);
    this.sleeper = options.sleeper ?? new Sleeper();
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(ready: Promise<unknown> = Promise.resolve()): void {
    if (this.loop || this.stopped) return;
    this.running = true;
    this.loop = this.run(ready);
  }

  wake(): void {
    this.woken = true;
    if (this.pausingMs !== undefined && this.pausingMs > this.wakeDelayMs) this.sleeper.wakeAll();
  }

  stop(): Promise<void> {
    this.stopped ??= this.stopOnce();
    return this.stopped;
  }

  private async stopOnce(): Promise<void> {
    const started = this.loop !== undefined;
    this.running = false;
    this.stopSignal();
    this.options.interrupt?.();
    this.sleeper.wakeAll();
    await this.loop;
    if (started) await this.options.drain?.();
  }

  private get wakeDelayMs(): number {
    return this.options.wakeDelayMs ?? 0;
  }

  private async run(ready: Promise<unknown>): Promise<void> {
    await Promise.race([ready, this.stopRequested]);
    let failures = 0;
    let pause = this.options.firstTurnAfterInterval ? this.options.intervalMs : 0;
    for (;;) {
      await this.pause(pause);
      if (!this.running) return;
      this.woken = false;
      try {
        const outcome = await this.options.turn();
        if (outcome === 'done') return;
        failures = 0;
        pause = outcome === 'more' ? 0 : this.options.intervalMs;
      } catch (error) {
        failures++;
        pause = this.failureDelay(failures);
        if (this.options.onFailure) this.options.onFailure(error, failures);
        else this.logger.error({ err: error, failures }, `turn failed; next try in ${pause} ms`);
      }
    }
  }

  private failureDelay(failures: number): number {
    const first = this.options.failureDelayMs ?? this.options.intervalMs;
    return backoffMs(failures, {
      baseMs: first,
      maxMs: Math.max(first, this.options.maxFailureDelayMs ?? first),
    });
  }

  private async pause(ms: number): Promise<void> {
    let remaining = this.woken ? Math.min(ms, this.wakeDelayMs) : ms;
    while (this.running && remaining > 0) {
      this.pausingMs = remaining;
      await this.sleeper.sleep(remaining);
      this.pausingMs = undefined;
      // Woken during a longer pause: only the wake delay is left.
      remaining = this.woken && remaining > this.wakeDelayMs ? this.wakeDelayMs : 0;
    }
  }
}
