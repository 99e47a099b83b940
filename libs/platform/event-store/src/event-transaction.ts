import type { EntityManager } from 'typeorm';
import {
  ClaimedWrite,
  StoredEventInput,
  appendStatement,
  binder,
  nameBeside,
  writesOf,
} from './append-statement';
import { EventRow, NewEvent, StoredEvent, concurrencyConflict, toEvent } from './events';

export const REPLAY = `SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version`;
export const PREVIOUS_RESPONSE = `SELECT response FROM idempotent_requests WHERE request_id = $1`;
export const NAMED_ANSWER = `SELECT response FROM idempotent_requests WHERE request_id = $1 OR answer_name = $1 LIMIT 1`;

/** What an aggregate is rebuilt from: an EventTransaction, or the EventStore outside one. */
export interface StreamReader {
  replayStream(streamId: string): Promise<NewEvent[]>;
}

/** The work of one transaction: reads and compare-and-set appends on streams. */
export class EventTransaction {
  constructor(readonly manager: EntityManager) {}

  async readStream(streamId: string): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.manager.query(
      `SELECT * FROM events WHERE stream_id = $1 ORDER BY version`,
      [streamId],
    );
    return rows.map(toEvent);
  }

  /**
   * What rebuilding an aggregate needs of its stream: each event's type and data, in order.
   * The metadata is left in the database: it carries the resource after every event (for
   * publication), many times the size of the events themselves.
   */
  replayStream(streamId: string): Promise<NewEvent[]> {
    return this.manager.query(REPLAY, [streamId]);
  }

  /**
   * As EventStore.appendAtomically, in this transaction (whose other writes commit with it). The
   * stream's version row is the lock: a concurrent append of the same version waits for this
   * transaction and then finds the version moved, so exactly one wins. Callers read every stream
   * they append to before their first write in the transaction; that keeps transaction ids
   * increasing along each stream, which the global log relies on.
   */
  async appendAtomically(
    streamId: string,
    expectedVersion: number,
    events: StoredEventInput[],
    writes: ClaimedWrite[] = [],
  ): Promise<void> {
    if (events.length === 0) throw new Error('appendAtomically needs at least one event');
    const { text, values } = appendStatement(streamId, expectedVersion, events, writes);
    const rows: { appended: number }[] = await this.manager.query(text, values);
    if (rows[0].appended !== events.length) throw concurrencyConflict(streamId);
  }

  /** Runs `writes` outside an append (their `claimed` always holds), in one statement. */
  async write(writes: ClaimedWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const values: unknown[] = [];
    const extra = writesOf(writes, binder(values));
    await this.manager.query(`WITH claimed AS (SELECT 1)${extra} SELECT 1`, values);
  }

  /** Holds transactions that lock the same key back until this one ends. */
  async lock(key: string): Promise<void> {
    await this.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
  }

  /** The first answer to an AIP-155 request id, if it was already handled. */
  async previousResponse<T>(requestId: string | undefined): Promise<T | undefined> {
    if (!requestId) return undefined;
    const rows: { response: T }[] = await this.manager.query(PREVIOUS_RESPONSE, [requestId]);
    return rows[0]?.response;
  }

  /** Keeps a command's answer under `key` (its request id, or its own name: see rememberedAnswer). */
  async rememberResponse(key: string, name: string | undefined, response: unknown): Promise<void> {
    await this.manager.query(
      `INSERT INTO idempotent_requests (request_id, answer_name, response) VALUES ($1, $2, $3)`,
      [key, nameBeside(key, name), JSON.stringify(response)],
    );
  }
}
