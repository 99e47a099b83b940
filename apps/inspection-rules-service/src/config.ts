import { baseConfigSchema, databaseConfigSchema } from '@rollout/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3004).shape,
  ...databaseConfigSchema('inspection').shape,
});

export type Config = z.output<typeof configSchema>;
