import { baseConfigSchema, checkDatabaseTls, databaseConfigSchema } from '@rollout/platform/config';
import { ADAPTER_NAME } from '@rollout/contracts';
import { z } from 'zod';

const nonNegativeInt = (fallback: number) =>
  z.coerce
    .number({ error: 'must be an integer ≥ 0' })
    .int('must be an integer ≥ 0')
    .min(0, 'must be an integer ≥ 0')
    .default(fallback);

const settings = z.object({
  ...baseConfigSchema(3010).shape,
  ...databaseConfigSchema('budget_adapter').shape,
  /** The adapter's name: its subjects are `adapter.v1.<name>.*`, its queue group `<name>`. */
  ADAPTER_NAME: z
    .string()
    .regex(ADAPTER_NAME, 'must be an RFC 1035 label such as acme-budget')
    .default('budget'),
  /** How long (ms) a caller may reuse a check result (`validDuration`). */
  BUDGET_CHECK_VALID_DURATION_MS: nonNegativeInt(5_000),
  /** How many times a caller may reuse a check result (`validUseCount`). */
  BUDGET_CHECK_VALID_USE_COUNT: nonNegativeInt(100),
  /** `validDuration` (ms) of quota grants. */
  BUDGET_QUOTA_VALID_DURATION_MS: nonNegativeInt(60_000),
});

export const configSchema = settings.superRefine(checkDatabaseTls);

export type Config = z.output<typeof configSchema>;
export const BUDGET_ADAPTER_CONFIG = Symbol('BUDGET_ADAPTER_CONFIG');
