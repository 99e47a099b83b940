import { BackgroundLoop } from '@rollout/platform/runtime';
import type { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import { Cursor, START, StoredEvent } from './events';
import { RELAY_CHECKPOINT, RELAY_LOCK, SAVE_RELAY_CHECKPOINT } from './event-statements';

export interface RelaySink {
  /** The sink may know better: ahead of a checkpoint lost to a crash, or behind it when it lost data. */
  resumeFrom(checkpoint: Cursor): Promise<Cursor>;
  /** `caughtUp`: nothing was committed after them when they were read. */
  publish(
    events: StoredEvent[],
    caughtUp: boolean,
  ): Promise<{ published: number; error?: unknown }>;
}

export interface OutboxRelayOptions {
  name: string;
  sink: RelaySink;
  batchSize?: number;
  idleDelayMs?: number;
  busyDelayMs?: number;
  onError?(error: unknown): void;
}

/**
 * The events table is the outbox. An advisory lock holds one relay of a name across replicas;
 * a crash between publish and checkpoint republishes, which each sink makes harmless. Order per
 * aggregate holds because an append's compare-and-set only succeeds on a version committed
 * before the appending transaction took its id, so its transaction id is always later.
 */
export class OutboxRelay {
  private readonly loop: BackgroundLoop;
  private recovered = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly options: OutboxRelayOptions,
  ) {
    const idleDelayMs = options.idleDelayMs ?? 200;
    this.loop = new BackgroundLoop({
      name: `OutboxRelay ${options.name}`,
      turn: async () => ((await this.publishBatch()) >= this.batchSize ? 'more' : 'idle'),
      intervalMs: idleDelayMs,
      // A short pause lets a burst of commands share one batch.
      wakeDelayMs: Math.min(options.busyDelayMs ?? 25, idleDelayMs),
      onFailure: (error) => options.onError?.(error),
    });
  }

  start(): void {
    this.loop.start();
  }

  nudge(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 500;
  }

  /** A failed publish moves the checkpoint to the event before it, then raises. */
  async publishBatch(): Promise<number> {
    const { published, error } = await this.dataSource.transaction(async (manager) => {
      // Without fsync: a lost checkpoint only republishes, which JetStream drops as duplicates.
      // The next statement's snapshot is taken after the lock, so it sees the previous checkpoint.
      const [{ locked }]: { locked: boolean }[] = await manager.query(RELAY_LOCK, [
        `relay:${this.options.name}`,
      ]);
      if (!locked) return { published: 0 };
      const [checkpoint]: { tx_id: string; position: string }[] = await manager.query(
        RELAY_CHECKPOINT,
        [this.options.name],
      );
      let cursor: Cursor = checkpoint
        ? { txId: checkpoint.tx_id, position: checkpoint.position }
        : START;
      if (!this.recovered) {
        cursor = await this.options.sink.resumeFrom(cursor);
        this.recovered = true;
      }
      const events = await this.store.readAll(cursor, this.batchSize, manager);
      const outcome = await this.options.sink.publish(events, events.length < this.batchSize);
      const last = events[outcome.published - 1];
      if (last) {
        await manager.query(SAVE_RELAY_CHECKPOINT, [this.options.name, last.txId, last.position]);
      }
      return outcome;
    });
    if (error !== undefined) {
      this.recovered = false;
      throw error;
    }
    return published;
  }
}

export function isAfter(a: Cursor, b: Cursor): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta !== tb ? ta > tb : BigInt(a.position) > BigInt(b.position);
}
