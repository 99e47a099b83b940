import { StatusError } from '@rollout/contracts';

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

export interface EventRow {
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

export const toEvent = (row: EventRow): StoredEvent => ({
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

/** Raised when a stream moved on since it was read: the caller's decision is stale. */
export function concurrencyConflict(streamId: string): StatusError {
  return StatusError.withReason(
    'ABORTED',
    `"${streamId}" was changed by another request at the same time; read it again and retry.`,
    'CONCURRENT_MODIFICATION',
    { resource: streamId },
  );
}
