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
  /**
   * The filter chain (YAML), read and validated once at start: an unknown filter or a bad
   * setting stops the service with the setting's path. The default, shipped next to the app,
   * lets `npm start` work with no configuration.
   */
  ENFORCEMENT_CONFIG_FILE: z.string().min(1).default('apps/enforcement-service/enforcement.yaml'),
  /**
   * How often the chain file is checked for changes (ms). A change, or SIGHUP, reloads it: a
   * valid file replaces the chain (adapter handlers whose config changed get new sessions), an
   * invalid one is logged and the running chain stays.
   */
  ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: positiveInt(2_000),
  /** `region_name` of the filter context for leases made through this API. */
  ENFORCEMENT_REGION_NAME: z.string().min(1).max(255).default('RegionOne'),
  /** How often the service activates leases whose start came and ends those whose end passed. */
  ENFORCEMENT_SWEEP_INTERVAL_MS: positiveInt(1_000),
  /**
   * Undelivered on_end notifications and CloseSession calls are retried from Postgres: checked
   * this often (ms), waiting ENFORCEMENT_RETRY_BASE_MS after the first failure, doubling up to
   * ENFORCEMENT_RETRY_MAX_MS. An on_end is given up after ENFORCEMENT_ON_END_MAX_ATTEMPTS
   * attempts (about an hour with the defaults); a CloseSession never is.
   */
  ENFORCEMENT_RETRY_POLL_INTERVAL_MS: positiveInt(1_000),
  ENFORCEMENT_RETRY_BASE_MS: positiveInt(1_000),
  ENFORCEMENT_RETRY_MAX_MS: positiveInt(300_000),
  ENFORCEMENT_ON_END_MAX_ATTEMPTS: positiveInt(20),
});

/** Production refuses a Postgres connection whose server is not verified (checkDatabaseTls). */
export const configSchema = settings.superRefine(checkDatabaseTls);

export type Config = z.output<typeof configSchema>;
export const ENFORCEMENT_SERVICE_CONFIG = Symbol('ENFORCEMENT_SERVICE_CONFIG');

/** A background job whose turn fails (Postgres unreachable) tries again after its interval, doubling up to this, so an outage is not logged every second. */
export const BACKGROUND_MAX_FAILURE_DELAY_MS = 30_000;
