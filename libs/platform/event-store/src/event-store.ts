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
  /** Called once a command's writes are committed (runOnce, appendAtomically): e.g. to wake the relays. */
  onCommit?: () => void;
  /**
   * The name an answer is kept under when no request id came with its command (an Operation's
   * name, for GET); undefined: such an answer is not kept.
   */
  answerName?: (answer: unknown) => string | undefined;
}

/** Postgres event store: the events are the truth; everything else is derived from them. */
export class EventStore {
  /** The data source's pool, for the one-round-trip reads and writes as prepared statements. */
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

  /**
   * Runs a command once per AIP-155 request id, in one transaction: a retry gets the first
   * answer, and a retry racing its original waits for it, then finds that answer.
   */
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

  /** See EventStoreOptions.answerName. */
  answerName(answer: unknown): string | undefined {
    return this.options.answerName?.(answer);
  }

  /** An answer kept under its own name (see EventStoreOptions.answerName). */
  async answerNamed<T>(name: string): Promise<T | undefined> {
    return (await this.pool.query<{ response: T }>(prepared(NAMED_ANSWER, [name]))).rows[0]
      ?.response;
  }

  readStream(streamId: string): Promise<StoredEvent[]> {
    return new EventTransaction(this.dataSource.manager).readStream(streamId);
  }

  /** As EventTransaction.replayStream, outside a transaction. */
  async replayStream(streamId: string): Promise<NewEvent[]> {
    return (await this.pool.query(prepared(REPLAY, [streamId]))).rows;
  }

  /** As EventTransaction.previousResponse, outside a transaction. */
  async previousResponse<T>(requestId: string | undefined): Promise<T | undefined> {
    if (!requestId) return undefined;
    return (await this.pool.query<{ response: T }>(prepared(PREVIOUS_RESPONSE, [requestId])))
      .rows[0]?.response;
  }

  /**
   * The one-round-trip command: appends `events` to one stream if it is still at
   * `expectedVersion`, and in the same statement (so atomically, with no transaction held
   * open across the caller's read) runs `writes`: projections, the remembered answer of a
   * request id... (see ClaimedWrite). Raises the compare-and-set conflict (ABORTED) when the
   * stream moved.
   */
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
   * Events of every stream after `cursor`, in commit-safe order. Positions come from a
   * sequence, so a transaction that commits late can hold a lower position than events
   * already read; ordering by transaction id and reading only transactions older than every
   * running one (below the snapshot's xmin) means no such event is ever skipped.
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
   * The last committed event's place in the global log (START when there is none). Every
   * command answered before this is called is at or before it, and readAll reaches it once the
   * transactions running now have ended: a reader of the relayed log that has reached it has
   * every change answered so far (read your writes across services).
   */
  async head(): Promise<Cursor> {
    const { rows } = await this.pool.query<{ tx_id: string; position: string }>(prepared(HEAD, []));
    return rows[0] ? { txId: rows[0].tx_id, position: rows[0].position } : START;
  }
}
