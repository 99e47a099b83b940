/** The evaluator bench's knobs (environment variables), targets and formatting. */
import { join } from 'node:path';

const numberOf = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return Math.floor(value);
};
export const EVENTS = numberOf('BENCH_EVENTS', 200_000);
export const FLOWS = numberOf('BENCH_FLOWS', 100_000);
export const ROUNDS = numberOf('BENCH_FRESHNESS_ROUNDS', 12);
/** How many times each report is read where the bench reads reports (the best read is printed). */
export const REPORT_READS = numberOf('BENCH_REPORT_READS', 1);
export const STORAGE_EVENTS = numberOf('BENCH_STORAGE_EVENTS', 250_000);
export const STORAGE_ROUNDS = numberOf('BENCH_STORAGE_ROUNDS', 4);
export const STORAGE_FLOWS = (process.env.BENCH_STORAGE_FLOWS ?? '1000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
export const MEMORY_EVENTS = numberOf('BENCH_MEMORY_EVENTS', 2_000_000);
export const MEMORY_FLOWS = numberOf('BENCH_MEMORY_FLOWS', 100_000);
export const SKIP_MEMORY = process.env.BENCH_SKIP_MEMORY === '1';
/** The traffic majors the memory scenario drains (comma-separated). */
export const MEMORY_MAJORS = (process.env.BENCH_MEMORY_MAJORS ?? 'v1,v2alpha')
  .split(',')
  .filter((major): major is 'v1' | 'v2alpha' => major === 'v1' || major === 'v2alpha');
/** Operators' churn beside the memory scenario (experiments made, previewed, committed, rolled back, deleted). */
export const MEMORY_CHURN = process.env.BENCH_MEMORY_CHURN !== '0';
/** The share of flows aimed at a rule of the live policy (see flowPool). */
export const RULE_FLOWS = Math.min(1, Number(process.env.BENCH_RULE_FLOWS ?? 0.8));
export const SKIP_STORAGE = process.env.BENCH_SKIP_STORAGE === '1';
export const SKIP_V1_K10 = process.env.BENCH_SKIP_V1_K10 === '1';
export const SKIP_V2ALPHA_K10 = process.env.BENCH_SKIP_V2ALPHA_K10 === '1';
export const SKIP_SCALING = process.env.BENCH_SKIP_SCALING === '1';
/** EVALUATOR_CONCURRENCY values the window sweep drains the same backlog with (empty: no sweep). */
export const WINDOW_CONCURRENCY = (process.env.BENCH_WINDOW_CONCURRENCY ?? '2,8,16')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
/** The evaluator's PREVIEW_LOGS_PER_EXPERIMENT; false measures only the per-policy log. */
export const PER_EXPERIMENT_LOGS = process.env.BENCH_PREVIEW_LOGS_PER_EXPERIMENT === 'true';
export const PROFILING = process.env.BENCH_PROFILE === 'evaluator';
/** A git revision whose evaluator runs every throughput scenario again, on the same backlog, for a same-run comparison. */
export const BASELINE = process.env.BENCH_BASELINE;
/** Events per traffic.v2alpha message. */
export const BATCH = 100;
export const TARGETS = {
  /** events/s evaluated over raw JetStream pull+ack (traffic.v1), by ACTIVE experiments. */
  ratio: { 1: 0.8, 3: 0.7, 10: 0.5 } as Record<number, number>,
  /** The evaluator's CPU µs per event, traffic.v2alpha batches, by ACTIVE experiments. */
  v2alphaCpuUs: { 1: 10, 10: 20 } as Record<number, number>,
  /** CPU per event with 10 ACTIVE experiments over that with 1, same major, same run. */
  cpuGrowthAt10: 1.5,
  /** The evaluator's Postgres backends' CPU µs per event with 3 ACTIVE experiments (traffic.v1). */
  pgCpuUsAt3: 5,
  /** MB added to the preview schema per million events (over all rounds of the pass) at 1,000 distinct flows. */
  storageMbPerMillion: 20,
  storageAtFlows: 1000,
  /** A later round is flat when it adds at most this share of round 1's bytes, or under FLAT_FLOOR_MB. */
  flatShare: 0.1,
  flatFloorMb: 1,
  rssMb: 300,
  freshnessP99Ms: 200,
};
export const PROFILE_DIR = '/tmp/prof';
export const PROBE_EVERY_MS = 4;
export const PROBE_FOR_MS = 400;
export const MB = 1024 ** 2;
export const ROOT = join(__dirname, '..', '..', '..');
export const out = (line: string) => process.stdout.write(`${line}\n`);
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;
export const errorText = (error: unknown) =>
  error instanceof Error ? error.message : String(error);
