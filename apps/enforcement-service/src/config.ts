import {
  baseConfigSchema,
  checkDatabaseTls,
  databaseConfigSchema,
  positiveInt,
} from '@rollout/platform/config';
import { z } from 'zod';

const settings = z.object({
  ...baseConfigSchema(3003).shape,
  ...databaseConfigSchema('enforcement').shape,
  /** Read and validated once at start: a bad setting stops the service. The default lets `npm start` work unconfigured. */
  ENFORCEMENT_CONFIG_FILE: z.string().min(1).default('apps/enforcement-service/enforcement.yaml'),
  /** A change, or SIGHUP, reloads it; an invalid file is logged and the running chain stays. */
  ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: positiveInt(2_000),
  ENFORCEMENT_REGION_NAME: z.string().min(1).max(255).default('RegionOne'),
  ENFORCEMENT_SWEEP_INTERVAL_MS: positiveInt(1_000),
  /** Retry back-off from Postgres; an on_end is given up after ENFORCEMENT_ON_END_MAX_ATTEMPTS (about an hour by default), a CloseSession never. */
  ENFORCEMENT_RETRY_POLL_INTERVAL_MS: positiveInt(1_000),
  ENFORCEMENT_RETRY_BASE_MS: positiveInt(1_000),
  ENFORCEMENT_RETRY_MAX_MS: positiveInt(300_000),
  ENFORCEMENT_ON_END_MAX_ATTEMPTS: positiveInt(20),
});

export const configSchema = settings.superRefine(checkDatabaseTls);

export type Config = z.output<typeof configSchema>;
export const ENFORCEMENT_SERVICE_CONFIG = Symbol('ENFORCEMENT_SERVICE_CONFIG');

/** So a Postgres outage is not logged every second. */
export const BACKGROUND_MAX_FAILURE_DELAY_MS = 30_000;
