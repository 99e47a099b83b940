import { randomUUID } from 'node:crypto';
import { EventMetadata, NewEvent } from './events';

/**
 * A write that goes with an append, in the same statement: one data-modifying SQL statement
 * that selects `FROM claimed` (the stream's version row, claimed by the compare-and-set), so it
 * happens only when the append does. `param` binds a value and returns its placeholder; a string
 * bound twice in one statement (the resource's JSON, say) is sent once, under one placeholder.
 */
export type ClaimedWrite = (param: (value: unknown) => string) => string;

/**
 * An event ready to be stored: its metadata, and `state`, the JSON of the resource after it
 * (kept in its metadata for publication), serialized once by whoever built it.
 */
export type StoredEventInput = NewEvent & { metadata: EventMetadata; state?: string };

/**
 * Keeps a command's answer, in the one answer record (`idempotent_requests`): under the request
 * id that asked for it, or under its own name when it has one and no request id came (an
 * Operation, which GET /v1/operations/{name} reads back; see EventStore.answerNamed). `answer` is
 * the SQL of the answer's JSON, e.g. spliced from the resource's JSON already serialized.
 */
export const rememberedAnswer =
  (key: string, name: string | undefined, answer: ClaimedWrite): ClaimedWrite =>
  (p) =>
    `INSERT INTO idempotent_requests (request_id, answer_name, response) SELECT ${p(key)}, ${p(nameBeside(key, name))}::text, ${answer(p)} FROM claimed`;

/** The name an answer kept under `key` is found by too: none when it is kept under its name. */
export const nameBeside = (key: string, name: string | undefined): string | null =>
  name === undefined || name === key ? null : name;

/** An answer's JSON, serialized here (see rememberedAnswer). */
export const answerJson =
  (response: unknown): ClaimedWrite =>
  (p) =>
    `${p(JSON.stringify(response))}::jsonb`;

/**
 * The compare-and-set on a stream's version row ($1 stream id, $2 expected version, $3 new
 * version): it returns the row only when the stream was still at $2 (absent, for 0).
 */
export const claimStream = (expectedVersion: number) =>
  expectedVersion === 0
    ? `INSERT INTO event_streams (stream_id, version) VALUES ($1, $3) ON CONFLICT DO NOTHING RETURNING stream_id`
    : `UPDATE event_streams SET version = $3 WHERE stream_id = $1 AND version = $2 RETURNING stream_id`;

/** `writes` alone, outside an append: their `claimed` always holds. */
export function writesStatement(writes: ClaimedWrite[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const extra = writesOf(writes, binder(values));
  return { text: `WITH claimed AS (SELECT 1)${extra} SELECT 1`, values };
}

/** Binds values after `values`; a string already bound keeps its placeholder. */
export function binder(values: unknown[]): (value: unknown) => string {
  const bound = new Map<string, string>();
  return (value) => {
    const known = typeof value === 'string' ? bound.get(value) : undefined;
    if (known) return known;
    values.push(value);
    const placeholder = `$${values.length}`;
    if (typeof value === 'string') bound.set(value, placeholder);
    return placeholder;
  };
}

/** The writes' CTEs after the first one, bound with `param`. */
export function writesOf(writes: ClaimedWrite[], param: (value: unknown) => string): string {
  // Every data-modifying CTE runs to completion whether or not the main query reads it.
  return writes.map((write, i) => `, write_${i} AS (${write(param)})`).join('');
}

/**
 * An event's metadata as stored, with the resource after it spliced in from its JSON (so that
 * JSON is not serialized again).
 */
export function metadataJson({ metadata, state }: StoredEventInput): string {
  const json = JSON.stringify(metadata);
  return state === undefined ? json : `${json.slice(0, -1)},"state":${state}}`;
}

/**
 * The one-statement append with its writes (see EventStore.appendAtomically); it answers the
 * number of events appended, which is short of `events` when the stream had moved.
 */
export function appendStatement(
  streamId: string,
  expectedVersion: number,
  events: StoredEventInput[],
  writes: ClaimedWrite[],
): { text: string; values: unknown[] } {
  const values: unknown[] = [
    streamId,
    expectedVersion,
    expectedVersion + events.length,
    events.map(() => randomUUID()),
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e.data)),
    events.map(metadataJson),
  ];
  const extra = writesOf(writes, binder(values));
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

export const READ_STREAM = `SELECT * FROM events WHERE stream_id = $1 ORDER BY version`;
export const REPLAY = `SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version`;
export const PREVIOUS_RESPONSE = `SELECT response FROM idempotent_requests WHERE request_id = $1`;
export const NAMED_ANSWER = `SELECT response FROM idempotent_requests WHERE request_id = $1 OR answer_name = $1 LIMIT 1`;
export const REMEMBER_RESPONSE = `INSERT INTO idempotent_requests (request_id, answer_name, response) VALUES ($1, $2, $3)`;
export const TRANSACTION_LOCK = `SELECT pg_advisory_xact_lock(hashtext($1))`;

/** Only transactions older than every running one: see EventStore.readAll. */
export const READ_ALL = `SELECT * FROM events
        WHERE (tx_id, position) > ($1::xid8, $2::bigint)
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY tx_id, position
        LIMIT $3`;
export const HEAD = `SELECT tx_id::text, position::text FROM events ORDER BY tx_id DESC, position DESC LIMIT 1`;

/** The relay's lock, and a commit without fsync: see OutboxRelay.publishBatch. */
export const RELAY_LOCK = `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked, set_config('synchronous_commit', 'off', true)`;
export const RELAY_CHECKPOINT = `SELECT tx_id::text, position::text FROM relay_checkpoints WHERE name = $1`;
export const SAVE_RELAY_CHECKPOINT = `INSERT INTO relay_checkpoints (name, tx_id, position) VALUES ($1, $2::xid8, $3)
           ON CONFLICT (name) DO UPDATE SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position`;
