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
 * Operation, which GET /v1/operations/{name} reads back; request ids never hold a `/`). `answer`
 * is the SQL of the answer's JSON, e.g. built on the resource's JSON bound once for the statement.
 */
export const rememberedAnswer =
  (key: string, name: string | undefined, answer: ClaimedWrite): ClaimedWrite =>
  (p) =>
    `INSERT INTO idempotent_requests (request_id, answer_name, response) SELECT ${p(key)}, ${p(name ?? null)}::text, ${answer(p)} FROM claimed`;

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
 * The one-statement append with its writes (see EventStore.appendAtomically); it answers the
 * number of events appended, which is short of `events` when the stream had moved. The last
 * event's state is bound like a write's value, so a write of the same resource shares it.
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
    events.map((e) => JSON.stringify(e.metadata)),
    events.map((e, i) => (i < events.length - 1 ? (e.state ?? null) : null)),
  ];
  const param = binder(values);
  const last = param(events.at(-1)?.state ?? null);
  const extra = writesOf(writes, param);
  const text = `WITH claimed AS (${claimStream(expectedVersion)}),
       appended AS (
         INSERT INTO events (event_id, stream_id, version, type, data, metadata)
         SELECT e.event_id, $1, $2::integer + e.ord::integer, e.type, e.data,
                e.metadata || CASE WHEN s.state IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('state', s.state) END
           FROM claimed, unnest($4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[]) WITH ORDINALITY AS e(event_id, type, data, metadata, state, ord),
                LATERAL (SELECT coalesce(e.state, CASE WHEN e.ord = ${events.length} THEN ${last}::jsonb END) AS state) s
         RETURNING 1
       )${extra}
       SELECT count(*)::integer AS appended FROM appended`;
  return { text, values };
}
