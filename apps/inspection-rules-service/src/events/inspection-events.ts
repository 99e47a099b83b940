import type { JetStreamDeclarations } from '@rollout/platform/nats';
import {
  INSPECTION_PHASES,
  INSPECTION_RESULTS_SUBJECT,
  inspectionEventSubject,
} from '@rollout/contracts';
import { z } from 'zod';

export const INSPECTION_STREAM = 'INSPECTION';
export const INSPECTION_RESULTS_STREAM = 'INSPECTION_RESULTS';
export const INSPECTION_DURABLE = 'inspection-rules-service';
export const INSPECTION_MAX_DELIVER = 5;

const TWO_MINUTES = 2 * 60 * 1000;

/** Events in, results out; both streams drop a repeated Nats-Msg-Id within two minutes. */
export const INSPECTION_JETSTREAM: JetStreamDeclarations = {
  streams: [
    {
      name: INSPECTION_STREAM,
      subjects: INSPECTION_PHASES.map(inspectionEventSubject),
      maxAgeMs: 7 * 24 * 3600 * 1000,
      maxBytes: 1024 ** 3,
      duplicateWindowMs: TWO_MINUTES,
    },
    {
      name: INSPECTION_RESULTS_STREAM,
      subjects: [INSPECTION_RESULTS_SUBJECT],
      maxAgeMs: 7 * 24 * 3600 * 1000,
      maxBytes: 1024 ** 3,
      duplicateWindowMs: TWO_MINUTES,
    },
  ],
  consumers: [
    {
      stream: INSPECTION_STREAM,
      durable: INSPECTION_DURABLE,
      ackWaitMs: 30_000,
      maxDeliver: INSPECTION_MAX_DELIVER,
    },
  ],
};

const object = z.record(z.string(), z.unknown());

/** What an inspection agent publishes; anything else is dead-lettered with the reason. */
export const inspectionEventSchema = z.object({
  // Control characters have no place in an id (and Postgres text cannot hold NUL).
  id: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters'),
  node: object.nullable().optional(),
  ports: z.array(object).max(10_000).default([]),
  port_groups: z.array(object).max(10_000).default([]),
  inventory: object.default({}),
  plugin_data: object.default({}),
  scope: z.string().max(255).nullable().optional(),
});
