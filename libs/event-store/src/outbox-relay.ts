import type { JetStreamClient } from 'nats';
import { headers as natsHeaders } from 'nats';
import type { DataSource } from 'typeorm';
import { Cursor, EventStore, START, StoredEvent } from './event-store';

export interface RelayMessage {
  subject: string;
  payload: Uint8Array;
}

export interface OutboxRelayOptions {
  /** Checkpoint name: one per relay (e.g. the JetStream stream it feeds). */
  name: string;
  batchSize?: number;
  idleDelayMs?: number;
  toMessage(event: StoredEvent): RelayMessage;
  onError?(error: unknown): void;
}

/**
 * Publishes committed events to JetStream: the events table is the outbox. Each batch runs
 * in a transaction holding an advisory lock (one relay at a time across replicas), publishes
 * in global order with `Nats-Msg-Id` = event id, then moves the checkpoint. A crash between
 * publish and checkpoint republishes, and JetStream's duplicate window drops the repeats, so
 * every event reaches the stream once, in order per aggregate.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private nudged = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly js: JetStreamClient,
    private readonly options: OutboxRelayOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Publish now rather than at the next poll (called after an append). */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** One batch; returns how many events it published (0 when another replica holds the lock). */
  async publishBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [{ locked }] = await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`, [`relay:${this.options.name}`]);
      if (!locked) return 0;
      const rows: { tx_id: string; position: string }[] = await manager.query(
        `SELECT tx_id::text, position::text FROM relay_checkpoints WHERE name = $1`,
        [this.options.name],
      );
      const cursor: Cursor = rows[0] ? { txId: rows[0].tx_id, position: rows[0].position } : START;
      const events = await this.store.readAll(cursor, this.options.batchSize ?? 500, manager);
      for (const event of events) {
        const message = this.options.toMessage(event);
        const hdrs = natsHeaders();
        hdrs.set('Event-Type', event.type);
        await this.js.publish(message.subject, message.payload, { msgID: event.eventId, headers: hdrs });
      }
      const last = events.at(-1);
      if (last) {
        await manager.query(
          `INSERT INTO relay_checkpoints (name, tx_id, position) VALUES ($1, $2::xid8, $3)
           ON CONFLICT (name) DO UPDATE SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position`,
          [this.options.name, last.txId, last.position],
        );
      }
      return events.length;
    });
  }

  private async run() {
    while (this.running) {
      let published = 0;
      try {
        published = await this.publishBatch();
      } catch (error) {
        this.options.onError?.(error);
      }
      if (published >= (this.options.batchSize ?? 500) || this.nudged) {
        this.nudged = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.idleDelayMs ?? 200);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
