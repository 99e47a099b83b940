import { StatusError } from '@rollout/contracts';

export interface NewEvent {
  type: string;
  data: unknown;
}

export interface EventMetadata {
  actor: string;
  requestId?: string;
  /** Derived, kept for publication; not the truth. */
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

export function concurrencyConflict(streamId: string): StatusError {
  return StatusError.withReason(
    'ABORTED',
    `"${streamId}" was changed by another request at the same time; read it again and retry.`,
    'CONCURRENT_MODIFICATION',
    { resource: streamId },
  );
}
