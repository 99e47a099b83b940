import { randomUUID } from 'node:crypto';
import { EventMetadata, NewEvent } from './events';

/**
 * Selects `FROM claimed` (the version row the compare-and-set claimed), so it runs only when
 * the append does. A string bound twice is sent once, under one placeholder.
 */
export type ClaimedWrite = (param: (value: unknown) => string) => string;

/** `state`: the resource after the event, serialized once by whoever built it. */
export type StoredEventInput = NewEvent & { metadata: EventMetadata; state?: string };

/**
 * Kept under the request id, or under its own name when there is none (an Operation, read by
 * GET /v1/operations/{name}). `answer` is SQL, e.g. spliced from the resource's JSON.
 */
export const rememberedAnswer =
  (key: string, name: string | undefined, answer: ClaimedWrite): ClaimedWrite =>
  (p) =>
    `INSERT INTO idempotent_requests (request_id, answer_name, response) SELECT ${p(key)}, ${p(nameBeside(key, name))}::text, ${answer(p)} FROM claimed`;

export const nameBeside = (key: string, name: string | undefined): string | null =>
  name === undefined || name === key ? null : name;

export const answerJson =
  (response: unknown): ClaimedWrite =>
  (p) =>
    `${p(JSON.stringify(response))}::jsonb`;

/** Returns the row only when the stream was still at $2 (absent, for 0). */
export const claimStream = (expectedVersion: number) =>
  expectedVersion === 0
    ? `INSERT INTO event_streams (stream_id, version) VALUES ($1, $3) ON CONFLICT DO NOTHING RETURNING stream_id`
    : `UPDATE event_streams SET version = $3 WHERE stream_id = $1 AND version = $2 RETURNING stream_id`;

export function writesStatement(writes: ClaimedWrite[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const extra = writesOf(writes, binder(values));
  return { text: `WITH claimed AS (SELECT 1)${extra} SELECT 1`, values };
}

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

export function writesOf(writes: ClaimedWrite[], param: (value: unknown) => string): string {
  // Data-modifying CTEs run to completion even when the main query does not read them.
  return writes.map((write, i) => `, write_${i} AS (${write(param)})`).join('');
}

/** Splices in the resource's JSON so it is not serialized again. */
export function metadataJson({ metadata, state }: StoredEventInput): string {
  const json = JSON.stringify(metadata);
  return state === undefined ? json : `${json.slice(0, -1)},"state":${state}}`;
}

/** Answers the number appended, short of `events` when the stream had moved. */
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

export const RELAY_LOCK = `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked, set_config('synchronous_commit', 'off', true)`;
export const RELAY_CHECKPOINT = `SELECT tx_id::text, position::text FROM relay_checkpoints WHERE name = $1`;
export const SAVE_RELAY_CHECKPOINT = `INSERT INTO relay_checkpoints (name, tx_id, position) VALUES ($1, $2::xid8, $3)
           ON CONFLICT (name) DO UPDATE SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position`;
