import { baseConfigSchema, databaseConfigSchema } from '@rollout/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3002).shape,
  ...databaseConfigSchema('preview').shape,
});

export type Config = z.output<typeof configSchema>;
