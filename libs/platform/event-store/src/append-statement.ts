import { randomUUID } from 'node:crypto';
import { EventMetadata, NewEvent } from './events';

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
export const claimStream = (expectedVersion: number) =>
  expectedVersion === 0
    ? `INSERT INTO event_streams (stream_id, version) VALUES ($1, $3) ON CONFLICT DO NOTHING RETURNING stream_id`
    : `UPDATE event_streams SET version = $3 WHERE stream_id = $1 AND version = $2 RETURNING stream_id`;

/** The writes' CTEs after the first one, with their values bound after `values`. */
export function writesOf(writes: ClaimedWrite[], values: unknown[]): string {
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
export function appendStatement(
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
