import { baseConfigSchema, checkDatabaseTls, databaseConfigSchema } from '@rollout/platform/config';
import { z } from 'zod';

const settings = z.object({
  ...baseConfigSchema(3004).shape,
  ...databaseConfigSchema('inspection').shape,
  INSPECTION_BUILT_IN_RULES: z
    .string()
    .min(1)
    .default('apps/inspection-rules-service/built-in-rules.yaml'),
  /** Unset: user rules without a scope apply to every node. */
  INSPECTION_DEFAULT_SCOPE: z.string().min(1).max(255).optional(),
  /** Whether rules see secrets (`always` masks them, `sensitive` shows them to sensitive rules only). */
  INSPECTION_MASK_SECRETS: z
    .enum(['always', 'never', 'sensitive'], { error: 'must be always, never or sensitive' })
    .default('always'),
});

export const configSchema = settings.superRefine(checkDatabaseTls);

export type Config = z.output<typeof configSchema>;
export const INSPECTION_CONFIG = Symbol('INSPECTION_CONFIG');
