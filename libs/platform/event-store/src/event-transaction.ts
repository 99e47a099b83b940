import type { EntityManager } from 'typeorm';
import {
  ClaimedWrite,
  PREVIOUS_RESPONSE,
  READ_STREAM,
  REMEMBER_RESPONSE,
  REPLAY,
  StoredEventInput,
  TRANSACTION_LOCK,
  appendStatement,
  nameBeside,
  writesStatement,
} from './event-statements';
import { EventRow, NewEvent, StoredEvent, concurrencyConflict, toEvent } from './events';

/** What an aggregate is rebuilt from: an EventTransaction, or the EventStore outside one. */
export interface StreamReader {
  replayStream(streamId: string): Promise<NewEvent[]>;
}

/** The work of one transaction: reads and compare-and-set appends on streams. */
export class EventTransaction {
  constructor(readonly manager: EntityManager) {}

  async readStream(streamId: string): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.manager.query(READ_STREAM, [streamId]);
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
    const { text, values } = writesStatement(writes);
    await this.manager.query(text, values);
  }

  /** Holds transactions that lock the same key back until this one ends. */
  async lock(key: string): Promise<void> {
    await this.manager.query(TRANSACTION_LOCK, [key]);
  }

  /** The first answer to an AIP-155 request id, if it was already handled. */
  async previousResponse<T>(requestId: string | undefined): Promise<T | undefined> {
    if (!requestId) return undefined;
    const rows: { response: T }[] = await this.manager.query(PREVIOUS_RESPONSE, [requestId]);
    return rows[0]?.response;
  }

  /** Keeps a command's answer under `key` (its request id, or its own name: see rememberedAnswer). */
  async rememberResponse(key: string, name: string | undefined, response: unknown): Promise<void> {
    await this.manager.query(REMEMBER_RESPONSE, [
      key,
      nameBeside(key, name),
      JSON.stringify(response),
    ]);
  }
}
