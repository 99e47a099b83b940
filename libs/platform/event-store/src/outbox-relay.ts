import type { JetStreamClient, JetStreamManager, MsgHdrs } from 'nats';
import { headers as natsHeaders } from 'nats';
import { BackgroundLoop } from '@rollout/platform/runtime';
import type { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import { Cursor, START, StoredEvent } from './events';
import { RELAY_CHECKPOINT, RELAY_LOCK, SAVE_RELAY_CHECKPOINT } from './event-statements';

export interface RelayMessage {
  subject: string;
  payload: Uint8Array;
}

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
 * between publish and checkpoint publishes again, which each sink makes harmless (JetStreamSink
 * by `Nats-Msg-Id`, the state bucket by version). After a failed batch the sink is asked again
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

export interface JetStreamSinkOptions {
  /**
   * The stream the messages land in (as named on the server). At start the relay resumes
   * after the last event found there when that is ahead of its checkpoint, so a checkpoint
   * lost to a crash never republishes, even after the duplicate window. Only valid when this
   * relay is the stream's one publisher.
   */
  stream?: string;
  toMessage(event: StoredEvent): RelayMessage;
}

/**
 * A stream sink: each event one message, `Nats-Msg-Id` = event id, so JetStream's duplicate
 * window drops what a restarted relay publishes again, and `Event-Tx`/`Event-Position` headers
 * from which a lost checkpoint is recovered.
 */
export class JetStreamSink implements RelaySink {
  constructor(
    private readonly js: JetStreamClient,
    private readonly options: JetStreamSinkOptions,
    private readonly jsm?: JetStreamManager,
  ) {}

  async resumeFrom(checkpoint: Cursor): Promise<Cursor> {
    const published = await this.lastPublished();
    return published && isAfter(published, checkpoint) ? published : checkpoint;
  }

  /**
   * Publishes without waiting for each acknowledgement in turn: the
   * first alone, then every other one at once, each expecting the one before it as the
   * stream's last message (`Nats-Expected-Last-Msg-Id`). So when one fails, every one after
   * it fails too and nothing lands out of order. JetStream drops a republished event as a
   * duplicate before it checks that expectation, so starting again after a crash works too.
   * Returns how many of the first events were stored, and the first failure.
   */
  async publish(events: StoredEvent[]): Promise<{ published: number; error?: unknown }> {
    const publish = (event: StoredEvent, previous?: StoredEvent) => {
      const message = this.options.toMessage(event);
      return this.js.publish(message.subject, message.payload, {
        msgID: event.eventId,
        headers: eventHeaders(event),
        ...(previous ? { expect: { lastMsgID: previous.eventId } } : {}),
      });
    };
    if (events.length === 0) return { published: 0 };
    try {
      await publish(events[0]);
    } catch (error) {
      return { published: 0, error };
    }
    const rest = await Promise.allSettled(
      events.slice(1).map((event, i) => publish(event, events[i])),
    );
    const failed = rest.findIndex((result) => result.status === 'rejected');
    if (failed === -1) return { published: events.length };
    return { published: failed + 1, error: (rest[failed] as PromiseRejectedResult).reason };
  }

  /** The cursor of the last event in the stream, or undefined when it is empty or unknown. */
  private async lastPublished(): Promise<Cursor | undefined> {
    if (!this.jsm || !this.options.stream) return undefined;
    const info = await this.jsm.streams.info(this.options.stream);
    if (info.state.last_seq === 0 || info.state.messages === 0) return undefined;
    const message = await this.jsm.streams.getMessage(this.options.stream, {
      seq: info.state.last_seq,
    });
    return cursorOfHeaders(message.header);
  }
}

/** `Event-Type`, and the event's place in the global log: `Event-Tx`, `Event-Position`. */
export function eventHeaders(event: StoredEvent): MsgHdrs {
  const headers = cursorHeaders(event);
  headers.set('Event-Type', event.type);
  return headers;
}

/** A place in the global log as headers (`Event-Tx`, `Event-Position`); cursorOfHeaders reads it back. */
export function cursorHeaders(cursor: Cursor): MsgHdrs {
  const headers = natsHeaders();
  headers.set('Event-Tx', cursor.txId);
  headers.set('Event-Position', cursor.position);
  return headers;
}

export function cursorOfHeaders(headers: MsgHdrs | undefined): Cursor | undefined {
  const txId = headers?.get('Event-Tx');
  const position = headers?.get('Event-Position');
  return txId && position ? { txId, position } : undefined;
}

export function isAfter(a: Cursor, b: Cursor): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta !== tb ? ta > tb : BigInt(a.position) > BigInt(b.position);
}
