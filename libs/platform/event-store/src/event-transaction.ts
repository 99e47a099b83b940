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

export interface StreamReader {
  replayStream(streamId: string): Promise<NewEvent[]>;
}

export class EventTransaction {
  constructor(readonly manager: EntityManager) {}

  async readStream(streamId: string): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.manager.query(READ_STREAM, [streamId]);
    return rows.map(toEvent);
  }

  /** Not the metadata: it carries the resource after every event, many times the events' size. */
  replayStream(streamId: string): Promise<NewEvent[]> {
    return this.manager.query(REPLAY, [streamId]);
  }

  /**
   * The version row is the lock: a concurrent append waits, then finds the version moved.
   * Callers read every stream they append to before their first write, which keeps
   * transaction ids increasing along each stream, as the global log relies on.
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

  async write(writes: ClaimedWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const { text, values } = writesStatement(writes);
    await this.manager.query(text, values);
  }

  async lock(key: string): Promise<void> {
    await this.manager.query(TRANSACTION_LOCK, [key]);
  }

  async previousResponse<T>(requestId: string | undefined): Promise<T | undefined> {
    if (!requestId) return undefined;
    const rows: { response: T }[] = await this.manager.query(PREVIOUS_RESPONSE, [requestId]);
    return rows[0]?.response;
  }

  async rememberResponse(key: string, name: string | undefined, response: unknown): Promise<void> {
    await this.manager.query(REMEMBER_RESPONSE, [
      key,
      nameBeside(key, name),
      JSON.stringify(response),
    ]);
  }
}
