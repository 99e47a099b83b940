import { baseConfigSchema, checkDatabaseTls, databaseConfigSchema } from '@rollout/platform/config';
import { z } from 'zod';

const settings = z.object({
  ...baseConfigSchema(3001).shape,
  ...databaseConfigSchema('experiment').shape,
});

/** Production refuses a Postgres connection whose server is not verified (checkDatabaseTls). */
export const configSchema = settings.superRefine(checkDatabaseTls);

export type Config = z.output<typeof configSchema>;
