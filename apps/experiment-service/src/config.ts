import { baseConfigSchema, databaseConfigSchema } from '@rollout/platform/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3001).shape,
  ...databaseConfigSchema('experiment').shape,
});

export type Config = z.output<typeof configSchema>;
