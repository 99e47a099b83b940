import { baseConfigSchema, databaseConfigSchema, positiveInt } from '@rollout/platform/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3001).shape,
  ...databaseConfigSchema('experiment').shape,
  /**
   * How long EXPERIMENT_EVENTS keeps history. Nothing reads current state from it (that is
   * the EXPERIMENT_STATE bucket, kept forever), so this only bounds how far back history goes.
   */
  EXPERIMENT_EVENTS_MAX_AGE_MS: positiveInt(30 * 24 * 3600 * 1000),
});

export type Config = z.output<typeof configSchema>;
