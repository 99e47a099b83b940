import { BackgroundLoop } from '@rollout/platform/runtime';
import type { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import { Cursor, START, StoredEvent } from './events';
import { RELAY_CHECKPOINT, RELAY_LOCK, SAVE_RELAY_CHECKPOINT } from './event-statements';

export interface RelaySink {
  /**
   * Where to resume at start, given the relay's checkpoint: the sink may know better (what it
   * already holds), ahead of a checkpoint lost to a crash or behind it when it lost data.
   */
  resumeFrom(checkpoint: Cursor): Promise<Cursor>;
  /**
   * Publishes `events` in their order. `caughtUp`: nothing was committed after them when they
   * were read. Returns how many of the first were stored, and the first failure.
   */
  publish(
    events: StoredEvent[],
    caughtUp: boolean,
  ): Promise<{ published: number; error?: unknown }>;
}

export interface OutboxRelayOptions {
  /** Checkpoint name: one per relay (e.g. the JetStream stream it feeds). */
  name: string;
  sink: RelaySink;
  batchSize?: number;
  /** Poll interval when nothing happens. */
  idleDelayMs?: number;
  /** Pause between batches while events keep coming. */
  busyDelayMs?: number;
  onError?(error: unknown): void;
}

/**
 * Publishes committed events to a sink (a JetStream stream, a KV bucket): the events table is
 * the outbox. Each batch runs in a transaction holding an advisory lock (one relay of a name at
 * a time across replicas), publishes in global order, then moves the checkpoint. A crash
 * between publish and checkpoint publishes again, which each sink makes harmless (a stream sink
 * by message id, the state bucket by version). After a failed batch the sink is asked again
 * where to resume. Order per aggregate holds because an append's compare-and-set succeeds only
 * on a version that was committed before the appending transaction took its id (at its first
 * write), so it always has a later transaction id than the append it follows.
 * `appendAtomically` gets this from its single statement; transactions get it by reading every
 * stream before their first write.
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
      // Nudged (events were appended): go again soon, after a short pause that lets a burst of
      // commands share one batch instead of one transaction each.
      wakeDelayMs: Math.min(options.busyDelayMs ?? 25, idleDelayMs),
      onFailure: (error) => options.onError?.(error),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Publish now rather than at the next poll (called after an append). */
  nudge(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 500;
  }

  /**
   * One batch; returns how many events it published (0 when another replica holds the lock).
   * A publish that fails ends the batch: the checkpoint moves to the event before it, then the
   * error is raised, and the next batch starts again from the failed event.
   */
  async publishBatch(): Promise<number> {
    const { published, error } = await this.dataSource.transaction(async (manager) => {
      // Take the relay's lock, and commit without fsync: losing the checkpoint only
      // republishes, which is recovered from the stream's last message or dropped by JetStream
      // as a duplicate. The checkpoint is read by the next statement, whose snapshot is taken
      // after the lock, so it sees the previous holder's last checkpoint.
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

/** Whether cursor `a` is later in the global log than `b`. */
export function isAfter(a: Cursor, b: Cursor): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta !== tb ? ta > tb : BigInt(a.position) > BigInt(b.position);
}
