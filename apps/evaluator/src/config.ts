import {
  baseConfigSchema,
  booleanFlag,
  busSigningKey,
  checkDatabaseTls,
  databaseConfigSchema,
  positiveInt,
} from '@rollout/platform/config';
import { z } from 'zod';

export const configSchema = z
  .object({
    ...baseConfigSchema(3002).shape,
    ...databaseConfigSchema('preview').shape,
    /** Distinct flows and transitions saturate, so larger batches write fewer rows per event. */
    EVALUATOR_BATCH_SIZE: positiveInt(1_000).pipe(z.number().max(10_000, 'must be at most 10000')),
    EVALUATOR_BATCH_BYTES: positiveInt(512 * 1024).pipe(
      z.number().max(64 * 1024 * 1024, 'must be at most 67108864'),
    ),
    /** Pulled and unacknowledged bytes: bounds memory whatever a traffic.v2alpha message holds. */
    EVALUATOR_HELD_BYTES: positiveInt(8 * 1024 * 1024).pipe(
      z.number().max(1024 * 1024 * 1024, 'must be at most 1073741824'),
    ),
    EVALUATOR_CONCURRENCY: positiveInt(8).pipe(z.number().max(16, 'must be at most 16')),
    /** The report lags traffic by about this much more than the transaction (docs/preview-reports.md). */
    EVALUATOR_WINDOW_MS: positiveInt(250).pipe(z.number().max(10_000, 'must be at most 10000')),
    EVALUATOR_WINDOW_EVENTS: positiveInt(20_000),
    /** Changed events of further flows are still counted, in no flow. */
    EVALUATOR_MAX_FLOWS: positiveInt(200_000),
    /** Counted from a configuration's last traffic, a committed or deleted experiment's too. */
    PREVIEW_RETENTION_MS: positiveInt(7 * 24 * 3600 * 1000),
    PREVIEW_HOUSEKEEPING_INTERVAL_MS: positiveInt(60_000),
    EVALUATOR_DEAD_LETTER_LOG_INTERVAL_MS: positiveInt(30_000),
    /** Keep it under the gateway's RPC_TIMEOUT_MS (docs/api.md, "Read your own writes"). */
    EVALUATOR_STATE_WAIT_MS: positiveInt(2_000).pipe(
      z.number().max(60_000, 'must be at most 60000'),
    ),
    AUTO_STOP_INTERVAL_MS: positiveInt(5_000),
    /** Signs the auto-stops (docs/bus-security.md). */
    BUS_SIGNING_KEY: busSigningKey.refine(
      (key) => key === undefined || /^system\.evaluator(\.[A-Za-z0-9_-]+)?:/.test(key),
      "must be the evaluator's system key: key id system.evaluator or system.evaluator.<suffix>",
    ),
    BACKTEST_BATCH_SIZE: positiveInt(200).pipe(z.number().max(10_000, 'must be at most 10000')),
    /** While the live consumer is idle; 0 only yields. */
    BACKTEST_PAUSE_MS: z.coerce
      .number({ error: 'must be a whole number of ms' })
      .int('must be a whole number of ms')
      .min(0, 'must be 0 or more')
      .max(10_000, 'must be at most 10000')
      .default(0),
    /** The share of the process a backtest takes while the live consumer has a backlog. */
    BACKTEST_BUSY_SHARE: z.coerce
      .number({ error: 'must be a number' })
      .gt(0, 'must be above 0')
      .max(1, 'must be at most 1')
      .default(0.1),
    BACKTEST_STALE_MS: positiveInt(30_000),
    /** Deprecated subjects (sunset 2027-12-31) that multiply PREVIEW_LOGS by the ACTIVE experiments. */
    PREVIEW_LOGS_PER_EXPERIMENT: booleanFlag(true),
    /** Deprecated PolicyPreviewLogBatch (sunset 2027-12-31): four times the compact log's bytes. */
    PREVIEW_LOGS_POLICY_JSON: booleanFlag(false),
  })
  .superRefine((config, ctx) => {
    checkDatabaseTls(config, ctx);
    if (config.NODE_ENV === 'production' && !config.BUS_SIGNING_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['BUS_SIGNING_KEY'],
        message:
          'must be set in production (auto-stop calls stopPreview, which the experiment service refuses unsigned)',
      });
    }
  });

export type Config = z.output<typeof configSchema>;
export const EVALUATOR_CONFIG = Symbol('EVALUATOR_CONFIG');
