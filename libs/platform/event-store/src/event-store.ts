import { StatusError } from '@rollout/contracts';
import { poolOf, prepared } from '@rollout/platform/postgres';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

export interface NewEvent {
  type: string;
  data: unknown;
}

export interface EventMetadata {
  actor: string;
  requestId?: string;
  /** Derived data kept for publication (e.g. the resource after the event); not the truth. */
  state?: unknown;
}

export interface StoredEvent {
  eventId: string;
  streamId: string;
  version: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  createdAt: Date;
  position: string;
  txId: string;
}

/** Where a reader of the global log stands: after this transaction id and position. */
export interface Cursor {
  txId: string;
  position: string;
}

export const START: Cursor = { txId: '0', position: '0' };

interface EventRow {
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date;
  position: string;
  tx_id: string;
}

const toEvent = (row: EventRow): StoredEvent => ({
  eventId: row.event_id,
  streamId: row.stream_id,
  version: row.version,
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  createdAt: row.created_at,
  position: String(row.position),
  txId: String(row.tx_id),
});

const REPLAY = `SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version`;
const PREVIOUS_RESPONSE = `SELECT response FROM idempotent_requests WHERE request_id = $1`;

/** What an aggregate is rebuilt from: an EventTransaction, or the EventStore outside one. */
export interface StreamReader {
  replayStream(streamId: string): Promise<NewEvent[]>;
}

/**
 * A write that goes with an append, in the same statement: one data-modifying SQL statement
 * that selects `FROM claimed` (the stream's version row, claimed by the compare-and-set), so it
 * happens only when the append does. `param` binds a value and returns its placeholder.
 */
export type ClaimedWrite = (param: (value: unknown) => string) => string;

/** Remembers the answer to a request id with an append (see EventTransaction.previousResponse). */
export const rememberedResponse =
  (requestId: string, response: unknown): ClaimedWrite =>
  (p) =>
    `INSERT INTO idempotent_requests (request_id, response) SELECT ${p(requestId)}, ${p(JSON.stringify(response))}::jsonb FROM claimed`;

/**
 * The compare-and-set on a stream's version row ($1 stream id, $2 expected version, $3 new
 * version): it returns the row only when the stream was still at $2 (absent, for 0).
 */
const claimStream = (expectedVersion: number) =>
  expectedVersion === 0
    ? `INSERT INTO event_streams (stream_id, version) VALUES ($1, $3) ON CONFLICT DO NOTHING RETURNING stream_id`
    : `UPDATE event_streams SET version = $3 WHERE stream_id = $1 AND version = $2 RETURNING stream_id`;

/** The writes' CTEs after the first one, with their values bound after `values`. */
function writesOf(writes: ClaimedWrite[], values: unknown[]): string {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  // Every data-modifying CTE runs to completion whether or not the main query reads it.
  return writes.map((write, i) => `, write_${i} AS (${write(param)})`).join('');
}

/**
 * The one-statement append with its writes (see EventStore.appendAtomically); it answers the
 * number of events appended, which is short of `events` when the stream had moved.
 */
function appendStatement(
  streamId: string,
  expectedVersion: number,
  events: (NewEvent & { metadata: EventMetadata })[],
  writes: ClaimedWrite[],
): { text: string; values: unknown[] } {
  const values: unknown[] = [
    streamId,
    expectedVersion,
    expectedVersion + events.length,
    events.map(() => randomUUID()),
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => JSON.stringify(e.metadata)),
  ];
  const extra = writesOf(writes, values);
  const text = `WITH claimed AS (${claimStream(expectedVersion)}),
       appended AS (
         INSERT INTO events (event_id, stream_id, version, type, data, metadata)
         SELECT e.event_id, $1, $2::integer + e.ord::integer, e.type, e.data, e.metadata
           FROM claimed, unnest($4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[]) WITH ORDINALITY AS e(event_id, type, data, metadata, ord)
         RETURNING 1
       )${extra}
       SELECT count(*)::integer AS appended FROM appended`;
  return { text, values };
}

/** Raised when a stream moved on since it was read: the caller's decision is stale. */
export function concurrencyConflict(streamId: string): StatusError {
  return StatusError.withReason(
    'ABORTED',
    `"${streamId}" was changed by another request at the same time; read it again and retry.`,
    'CONCURRENT_MODIFICATION',
    { resource: streamId },
  );
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
   * Appends `events` if the stream is still at `expectedVersion` (0: a new stream), in one
   * statement (one round trip). The version row is the lock: a concurrent append of the same
   * version waits for this transaction and then finds the version moved, so exactly one wins.
   * Callers read every stream they append to before their first write in the transaction;
   * that keeps transaction ids increasing along each stream, which the global log relies on.
   */
  async append(
    streamId: string,
    expectedVersion: number,
    events: NewEvent[],
    metadata: EventMetadata,
  ): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const claim = claimStream(expectedVersion);
    const rows: EventRow[] = await this.manager.query(
      `WITH claimed AS (${claim})
       INSERT INTO events (event_id, stream_id, version, type, data, metadata)
       SELECT e.event_id, $1, $2::integer + e.ord::integer, e.type, e.data, $7::jsonb
         FROM claimed, unnest($4::uuid[], $5::text[], $6::jsonb[]) WITH ORDINALITY AS e(event_id, type, data, ord)
       RETURNING *`,
      [
        streamId,
        expectedVersion,
        expectedVersion + events.length,
        events.map(() => randomUUID()),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        JSON.stringify(metadata),
      ],
    );
    if (rows.length !== events.length) throw concurrencyConflict(streamId);
    return rows.map(toEvent).sort((a, b) => a.version - b.version);
  }

  /**
   * As EventStore.appendAtomically, in this transaction (whose other writes commit with it).
   * Read the stream first, as for `append`.
   */
  async appendAtomically(
    streamId: string,
    expectedVersion: number,
    events: (NewEvent & { metadata: EventMetadata })[],
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
    const extra = writesOf(writes, values);
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

  async rememberResponse(requestId: string | undefined, response: unknown): Promise<void> {
    if (!requestId) return;
    await this.manager.query(
      `INSERT INTO idempotent_requests (request_id, response) VALUES ($1, $2)`,
      [requestId, JSON.stringify(response)],
    );
  }
}

export interface EventStoreOptions {
  /** Called once a command's writes are committed (runOnce, appendAtomically): e.g. to wake the relays. */
  onCommit?: () => void;
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
      await tx.rememberResponse(requestId, answer);
      return answer;
    });
    this.options.onCommit?.();
    return result;
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
    events: (NewEvent & { metadata: EventMetadata })[],
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
    const rows: EventRow[] = await manager.query(
      `SELECT * FROM events
        WHERE (tx_id, position) > ($1::xid8, $2::bigint)
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY tx_id, position
        LIMIT $3`,
      [after.txId, after.position, limit],
    );
    return rows.map(toEvent);
  }
}
