import { FIELD_WORDING, textProblem } from '@rollout/platform/errors';
import { z } from 'zod';

export {
  INSPECTION_DURABLE,
  INSPECTION_MAX_DELIVER,
  INSPECTION_RESULTS_STREAM,
  INSPECTION_STREAM,
} from '@rollout/contracts';

const object = z.record(z.string(), z.unknown());

/** What an inspection agent publishes; anything else is dead-lettered with the reason. */
export const inspectionEventSchema = z.object({
  // Postgres text cannot hold NUL; an unpaired surrogate would be stored as U+FFFD, making two ids one.
  id: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
    .refine(
      (id) => textProblem(id) !== FIELD_WORDING.unpairedSurrogate,
      FIELD_WORDING.unpairedSurrogate,
    ),
  node: object.nullable().optional(),
  ports: z.array(object).max(10_000).default([]),
  port_groups: z.array(object).max(10_000).default([]),
  inventory: object.default({}),
  plugin_data: object.default({}),
  scope: z.string().max(255).nullable().optional(),
});
