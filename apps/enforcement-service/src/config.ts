import { baseConfigSchema, databaseConfigSchema } from '@rollout/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3003).shape,
  ...databaseConfigSchema('enforcement').shape,
});

export type Config = z.output<typeof configSchema>;
