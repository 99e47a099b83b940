import { poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ClaimedWrite,
  HEAD,
  NAMED_ANSWER,
  PREVIOUS_RESPONSE,
  READ_ALL,
  REPLAY,
  StoredEventInput,
  appendStatement,
} from './event-statements';
import {
  Cursor,
  EventRow,
  NewEvent,
  START,
  StoredEvent,
  concurrencyConflict,
  toEvent,
} from './events';
import { EventTransaction } from './event-transaction';

export interface EventStoreOptions {
  /** E.g. to wake the relays. */
  onCommit?: () => void;
  /** When no request id came (an Operation, for GET); undefined: not kept. */
  answerName?: (answer: unknown) => string | undefined;
}

export class EventStore {
  private readonly pool: Pool;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: EventStoreOptions = {},
  ) {
    this.pool = poolOf(dataSource);
  }

  transaction<T>(work: (tx: EventTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new EventTransaction(manager)));
  }

  /** Once per AIP-155 request id: a retry racing its original waits for it, then finds its answer. */
  async runOnce<T>(
    requestId: string | undefined,
    work: (tx: EventTransaction) => Promise<T>,
  ): Promise<T> {
    const result = await this.transaction(async (tx) => {
      if (requestId) await tx.lock(`request:${requestId}`);
      const previous = await tx.previousResponse<T>(requestId);
      if (previous !== undefined) return previous;
      const answer = await work(tx);
      const name = this.answerName(answer);
      const key = requestId ?? name;
      if (key) await tx.rememberResponse(key, name, answer);
      return answer;
    });
    this.options.onCommit?.();
    return result;
  }

  answerName(answer: unknown): string | undefined {
    return this.options.answerName?.(answer);
  }

  async answerNamed<T>(name: string): Promise<T | undefined> {
    return (await this.pool.query<{ response: T }>(prepared(NAMED_ANSWER, [name]))).rows[0]
      ?.response;
  }

  readStream(streamId: string): Promise<StoredEvent[]> {
    return new EventTransaction(this.dataSource.manager).readStream(streamId);
  }

  async replayStream(streamId: string): Promise<NewEvent[]> {
    return (await this.pool.query(prepared(REPLAY, [streamId]))).rows;
  }

  async previousResponse<T>(requestId: string | undefined): Promise<T | undefined> {
    if (!requestId) return undefined;
    return (await this.pool.query<{ response: T }>(prepared(PREVIOUS_RESPONSE, [requestId])))
      .rows[0]?.response;
  }

  /** One statement, so no transaction is held open across the caller's read; ABORTED when the stream moved. */
  async appendAtomically(
    streamId: string,
    expectedVersion: number,
    events: StoredEventInput[],
    writes: ClaimedWrite[] = [],
  ): Promise<void> {
    if (events.length === 0) throw new Error('appendAtomically needs at least one event');
    const { text, values } = appendStatement(streamId, expectedVersion, events, writes);
    const { rows } = await this.pool.query<{ appended: number }>(prepared(text, values));
    if (rows[0].appended !== events.length) throw concurrencyConflict(streamId);
    this.options.onCommit?.();
  }

  /**
   * Positions come from a sequence, so a late commit can hold a lower position than events
   * already read: ordering by transaction id and reading only below the snapshot's xmin skips
   * none.
   */
  async readAll(
    after: Cursor,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<StoredEvent[]> {
    const rows: EventRow[] = await manager.query(READ_ALL, [after.txId, after.position, limit]);
    return rows.map(toEvent);
  }

  /**
   * Every command answered before this call is at or before it: a reader of the relayed log
   * that reached it has read its writes across services.
   */
  async head(): Promise<Cursor> {
    const { rows } = await this.pool.query<{ tx_id: string; position: string }>(prepared(HEAD, []));
    return rows[0] ? { txId: rows[0].tx_id, position: rows[0].position } : START;
  }
}
