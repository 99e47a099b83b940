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
    /**
     * Most traffic messages evaluated and counted in one Postgres transaction. A transaction's
     * rows grow with the distinct flows and rule transitions it carries, which saturate: larger
     * batches write fewer rows per event. The pull asks for at most twice this many messages,
     * and for no more than EVALUATOR_HELD_BYTES leaves room for.
     */
    EVALUATOR_BATCH_SIZE: positiveInt(1_000).pipe(z.number().max(10_000, 'must be at most 10000')),
    /** Most traffic payload bytes in one batch (a traffic.v2alpha message holds many events): bounds what one batch decodes at once. */
    EVALUATOR_BATCH_BYTES: positiveInt(512 * 1024).pipe(
      z.number().max(64 * 1024 * 1024, 'must be at most 67108864'),
    ),
    /**
     * Most traffic payload bytes one replica holds at once: pulled and not yet acknowledged,
     * in the pull's buffer, a batch being filled or batches in flight. Each pull asks for what
     * fits, so memory stays bounded whatever a traffic.v2alpha message holds.
     */
    EVALUATOR_HELD_BYTES: positiveInt(8 * 1024 * 1024).pipe(
      z.number().max(1024 * 1024 * 1024, 'must be at most 1073741824'),
    ),
    /** Batches in flight at once in one replica: evaluated, or waiting for their window's commit. */
    EVALUATOR_CONCURRENCY: positiveInt(8).pipe(z.number().max(16, 'must be at most 16')),
    /**
     * Longest a counting window stays open: batches evaluated meanwhile are counted in one
     * transaction and acknowledged after it (docs/preview-reports.md). The report lags traffic by
     * about this much more than the transaction itself.
     */
    EVALUATOR_WINDOW_MS: positiveInt(250).pipe(z.number().max(10_000, 'must be at most 10000')),
    /** Most evaluated events in one counting window: a window this full is counted at once. */
    EVALUATOR_WINDOW_EVENTS: positiveInt(20_000),
    /** Most changed flows kept per configuration; changed events of further flows are counted, in no flow. */
    EVALUATOR_MAX_FLOWS: positiveInt(200_000),
    /** How long a configuration's report and flows are kept after its last traffic (a committed or deleted experiment's too). */
    PREVIEW_RETENTION_MS: positiveInt(7 * 24 * 3600 * 1000),
    /** How often a replica merges the counted-sequence ranges and removes what retention lets go. */
    PREVIEW_HOUSEKEEPING_INTERVAL_MS: positiveInt(60_000),
    /** Dead-lettered traffic is logged as one summary line per this interval (docs/operations.md). */
    EVALUATOR_DEAD_LETTER_LOG_INTERVAL_MS: positiveInt(30_000),
    /**
     * Longest a read that must see the changes answered before it (`State-After`, docs/api.md
     * "Read your own writes") waits for them to reach this replica's snapshot; then it is
     * UNAVAILABLE with a retry hint. Keep it under the gateway's RPC_TIMEOUT_MS.
     */
    EVALUATOR_STATE_WAIT_MS: positiveInt(2_000).pipe(
      z.number().max(60_000, 'must be at most 60000'),
    ),
    /** How often a replica checks the ACTIVE experiments' stopAfter and breaker (docs/readiness-gates.md). */
    AUTO_STOP_INTERVAL_MS: positiveInt(5_000),
    /**
     * The evaluator's system key, which signs its auto-stops: key id `system.evaluator` or
     * `system.evaluator.<suffix>` (docs/bus-security.md). Required in production.
     */
    BUS_SIGNING_KEY: busSigningKey.refine(
      (key) => key === undefined || /^system\.evaluator(\.[A-Za-z0-9_-]+)?:/.test(key),
      "must be the evaluator's system key: key id system.evaluator or system.evaluator.<suffix>",
    ),
    /** Most TRAFFIC messages a backtest fetches and evaluates at once (docs/backtest.md). */
    BACKTEST_BATCH_SIZE: positiveInt(200).pipe(z.number().max(10_000, 'must be at most 10000')),
    /** Pause between a backtest's batches while the live consumer has nothing to read (0: yield only). */
    BACKTEST_PAUSE_MS: z.coerce
      .number({ error: 'must be a whole number of ms' })
      .int('must be a whole number of ms')
      .min(0, 'must be 0 or more')
      .max(10_000, 'must be at most 10000')
      .default(0),
    /** While the live consumer has a backlog, the most of the process's time a backtest takes (it pauses for the rest). */
    BACKTEST_BUSY_SHARE: z.coerce
      .number({ error: 'must be a number' })
      .gt(0, 'must be above 0')
      .max(1, 'must be at most 1')
      .default(0.1),
    /** A backtest whose evaluator has not beaten for this long is failed (its process died). */
    BACKTEST_STALE_MS: positiveInt(30_000),
    /**
     * Also log one record per event and ACTIVE experiment on the deprecated per-experiment
     * subjects (preview.v1 before 1.8.0; sunset 2027-12-31), beside the policy's log. Turn off
     * once no consumer reads them: they multiply PREVIEW_LOGS by the ACTIVE experiments.
     */
    PREVIEW_LOGS_PER_EXPERIMENT: booleanFlag(true),
    /**
     * Also log each policy's log as PolicyPreviewLogBatch on its deprecated subject (preview.v1
     * 1.8.0 to 1.9.0; sunset 2027-12-31), beside the compact log, for consumers that have not
     * moved to CompactPolicyPreviewLog: about four times the bytes of the compact log.
     */
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
