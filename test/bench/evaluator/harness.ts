/**
 * The evaluator bench's harness: the build, the provisioning step, the experiment-service and
 * the evaluator processes (this build's or the baseline's), the TRAFFIC stream, the preview
 * schemas and what is measured of them, and the summary's lines. Closed by `close()`.
 */
import { TRAFFIC_STREAM, trafficSubject } from '@rollout/contracts';
import { trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { NatsNamespace, NatsRpcClient } from '@rollout/platform/nats';
import { provisionFromEnv } from '@rollout/provision';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  uniqueName,
} from '@rollout/testing/kit';
import { ChildProcess, execSync } from 'node:child_process';
import { connect } from 'nats';
import { join } from 'node:path';
import { Client } from 'pg';
import { profileClockUs, profileShares } from '../support';
import {
  BASELINE,
  BATCH,
  EVENTS,
  MB,
  MEMORY_EVENTS,
  PER_EXPERIMENT_LOGS,
  PROFILE_DIR,
  PROFILING,
  ROOT,
  SKIP_MEMORY,
  SKIP_STORAGE,
  STORAGE_EVENTS,
  STORAGE_ROUNDS,
  errorText,
  out,
  sleep,
} from './config';
import { BackendCpu, buildBaseline, cpuOf, processStats, startApp, stop } from './processes';
import { Traffic, publishAll, publishBatches } from './workload';

/** One line of the final summary: a figure, and its target when it has one. */
export interface SummaryLine {
  label: string;
  value: string;
  target?: string;
  met?: boolean;
}

export const cpuText = (r: { cpuPerEventUs: number; pgCpuPerEventUs: number }) =>
  `CPU per event: evaluator ${r.cpuPerEventUs.toFixed(1)} µs, its Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs`;

/** Rows written per counting transaction (window), per batch and per event. */
export const countingText = (
  c: { windows: number; batches: number; rows: number },
  events: number,
) =>
  Number.isNaN(c.windows)
    ? 'counting windows: not reported by this build'
    : `${c.windows} counting transactions for ${c.batches} batches (${(c.batches / c.windows).toFixed(1)} batches per window): ${Math.round(c.rows / c.windows)} rows written per window, ${Math.round(c.rows / c.batches)} per batch, ${(c.rows / events).toFixed(3)} per event`;

export async function openHarness() {
  out('building (the services run from dist/, as in production)…');
  execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  const baselineRoot = BASELINE ? buildBaseline(BASELINE) : undefined;
  const namespace = uniqueName('bench');
  const ns = new NatsNamespace(namespace);
  const schemas = { experiment: uniqueName('bench_'), preview: uniqueName('bench_') };
  /** The empty schemas the storage and memory passes start from (dropped once measured, and at the end). */
  const passSchemas: string[] = [];
  const common = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    HOST: '127.0.0.1',
    DATABASE_URL: TEST_POSTGRES_URL,
  };
  // TRAFFIC holds one scenario at a time (it is purged in between): room for the largest, ~800 bytes an event.
  const largest = Math.max(
    EVENTS,
    SKIP_STORAGE ? 0 : STORAGE_EVENTS * STORAGE_ROUNDS,
    SKIP_MEMORY ? 0 : MEMORY_EVENTS,
  );
  const evaluatorEnv = {
    ...common,
    TRAFFIC_MAX_BYTES: String(Math.max(512 * MB, largest * 800)),
    // Purged before each throughput scenario: room for one with 10 ACTIVE experiments logged per experiment.
    PREVIEW_LOGS_MAX_BYTES: String(Math.max(1024 ** 3, EVENTS * 10 * 1024)),
    PREVIEW_LOGS_PER_EXPERIMENT: String(PER_EXPERIMENT_LOGS),
  };
  // The provisioning step, before the services (docs/bus-security.md).
  await provisionFromEnv(evaluatorEnv);
  const service = startApp('experiment-service', {
    ...common,
    PORT: String(await freePort()),
    DATABASE_SCHEMA: schemas.experiment,
  });
  /**
   * The evaluator processes running now (two when they share the durable consumer), each with
   * when it became ready and its CPU seconds then; the HTTP port of the first.
   */
  let evaluators: {
    child: ChildProcess;
    label?: string;
    profile?: string;
    readyAt: number;
    cpuAtReady: number;
    /** When it was ready on the CPU profile's clock: its profile is read from then on. */
    readyAtUs: number;
    /** When its backlog was drained, on the same clock: the reports read afterwards are left out. */
    drainedAtUs?: number;
  }[] = [];
  let evaluatorPort = 0;
  let evaluatorsStarted = 0;
  const nc = await connect({ servers: TEST_NATS_URL });
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const rpc = new NatsRpcClient(nc, ns);
  const pg = new Client({ connectionString: TEST_POSTGRES_URL });
  await pg.connect();
  const ask = <T>(subject: string, data: unknown) =>
    rpc.request<T>(subject, data, { timeoutMs: 30_000 });
  const summary: SummaryLine[] = [];
  const note = (line: SummaryLine) => summary.push(line);

  /**
   * A fresh evaluator process on `schema` (this build's, or another's), beside those running;
   * resolves when it is ready (performance.now()). `label` names its CPU profile.
   */
  const startEvaluator = async (
    schema: string,
    label?: string,
    root = ROOT,
    env: Record<string, string> = {},
  ) => {
    const port = await freePort();
    evaluatorsStarted++;
    // Named, so that it is found again; only a labelled one is reported (not the first, which declares the streams).
    const profile = PROFILING
      ? `evaluator-${namespace}-${evaluatorsStarted}-${label ?? 'streams'}.cpuprofile`
      : undefined;
    const child = startApp(
      'evaluator',
      { ...evaluatorEnv, ...env, DATABASE_SCHEMA: schema, PORT: String(port) },
      root,
      profile,
    );
    const entry = { child, label, profile, readyAt: 0, cpuAtReady: 0, readyAtUs: 0 };
    evaluators.push(entry);
    if (evaluators[0] === entry) evaluatorPort = port;
    entry.readyAt = await eventually(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the evaluator exited (${child.exitCode ?? child.signalCode})`);
        return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status ===
          200
          ? performance.now()
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 10, what: 'evaluator ready' },
    );
    entry.cpuAtReady = cpuOf(child.pid as number);
    entry.readyAtUs = profileClockUs();
    return entry.readyAt;
  };
  /** The first evaluator, once every one running is checked to be alive. */
  const running = (): ChildProcess => {
    if (evaluators.length === 0) throw new Error('no evaluator running');
    for (const { child } of evaluators)
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the evaluator exited (${child.exitCode ?? child.signalCode})`);
    return evaluators[0].child;
  };
  /** The GC and socket-write shares of each profiled evaluator, listed at the end of the summary. */
  const profiles: SummaryLine[] = [];
  /**
   * Stops every evaluator; with BENCH_PROFILE=evaluator, prints what each one's profile shows
   * from its readiness to its stop (its start-up left out).
   */
  const stopEvaluators = async () => {
    const stopping = evaluators;
    evaluators = [];
    const stoppedAtUs = profileClockUs();
    await Promise.all(stopping.map(({ child }) => stop(child)));
    for (const { label, profile, readyAtUs, drainedAtUs } of stopping) {
      if (!profile || !label) continue;
      const path = join(PROFILE_DIR, profile);
      try {
        const { sampledMs, whole, shares } = profileShares(
          path,
          { gc: /^\(garbage collector\)$/, writes: /writev|writeBuffer|_writeGeneric/ },
          { fromUs: readyAtUs, toUs: drainedAtUs ?? stoppedAtUs },
        );
        const value = `garbage collection ${(shares.gc * 100).toFixed(1)}%, socket writes ${(shares.writes * 100).toFixed(1)}% of ${(sampledMs / 1000).toFixed(1)} s sampled (idle excluded; ${whole ? 'the whole process' : drainedAtUs ? 'from ready to drained' : 'from ready to stop'})`;
        out(`    CPU profile of the evaluator (${label}): ${value}; ${path}`);
        profiles.push({ label: `  ${label}`, value });
      } catch (error) {
        out(`    CPU profile of the evaluator (${label}) not read: ${errorText(error)}`);
      }
    }
  };

  // The preview schema, measured whatever its tables are.
  const tablesOf = async (schema: string): Promise<string[]> =>
    (
      await pg.query(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm') ORDER BY c.relname`,
        [schema],
      )
    ).rows.map((r) => r.relname);
  const quoted = (schema: string, table: string) => `"${schema}"."${table.replace(/"/g, '""')}"`;
  const vacuum = async (schema: string) => {
    for (const table of await tablesOf(schema))
      await pg.query(`VACUUM (ANALYZE) ${quoted(schema, table)}`);
  };
  /** The sum of pg_total_relation_size (heap, indexes, TOAST, maps) over the schema's tables, and each table's rows. */
  const sizeOf = async (
    schema: string,
  ): Promise<{ bytes: number; rows: Record<string, number> }> => {
    const bytes = Number(
      (
        await pg.query(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm')`,
          [schema],
        )
      ).rows[0].bytes,
    );
    const rows: Record<string, number> = {};
    for (const table of await tablesOf(schema))
      rows[table] = Number(
        (await pg.query(`SELECT count(*) AS n FROM ${quoted(schema, table)}`)).rows[0].n,
      );
    return { bytes, rows };
  };
  /** Every outbox-like table of the schema (a name containing "outbox") is empty: what was committed is on PREVIEW_LOGS. */
  const outboxesEmpty = async (schema: string) => {
    for (const table of (await tablesOf(schema)).filter((t) => t.includes('outbox'))) {
      if ((await pg.query(`SELECT 1 FROM ${quoted(schema, table)} LIMIT 1`)).rowCount) return false;
    }
    return true;
  };
  const dropSchema = async (schema: string) => {
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  };

  const stream = ns.stream(TRAFFIC_STREAM);
  const subject = ns.subject(trafficSubject('bench', 'global', 'edge'));
  const v2alphaSubject = ns.subject(trafficV2alphaSubject('bench', 'global', 'edge'));
  const publish = (major: 'v1' | 'v2alpha', traffic: Traffic) =>
    major === 'v1'
      ? publishAll(nc, subject, traffic)
      : publishBatches(nc, v2alphaSubject, traffic, BATCH);
  /** Empties TRAFFIC between scenarios (everything in it is acknowledged), so it holds one scenario at a time. */
  const purgeTraffic = async () => {
    await jsm.streams.purge(stream);
  };
  const consumerSettled = async (last: number) => {
    const info = await jsm.consumers.info(stream, 'evaluator');
    return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0;
  };
  /**
   * Waits until every message up to `last` is acknowledged (settledAt) and the store's outbox,
   * if it has one, is empty (doneAt); fails at once if the evaluator exits.
   */
  const settle = async (last: number, schema: string, events: number, backends?: BackendCpu) => {
    // At least 100 events/s: with 10 ACTIVE experiments on a busy machine, an evaluator doing per-experiment work per event comes near that.
    const timeoutMs = Math.max(600_000, events * 10);
    const deadline = performance.now() + timeoutMs;
    let settledAt = 0;
    for (;;) {
      running();
      if (!settledAt && (await consumerSettled(last))) settledAt = performance.now();
      if (settledAt && (await outboxesEmpty(schema)))
        return { settledAt, doneAt: performance.now() };
      await backends?.maybeSample();
      if (performance.now() > deadline)
        throw new Error(`${events} events not evaluated within ${timeoutMs / 1000} s`);
      await sleep(25);
    }
  };
  /** The first evaluator's counting transactions (windows), batches and rows written, from its metrics. */
  const countingOf = async () => {
    const metrics = await fetch(`http://127.0.0.1:${evaluatorPort}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const value = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    return {
      windows: value('evaluator_counting_windows_total'),
      batches: value('evaluator_counting_batches_total'),
      rows: value('evaluator_counting_rows_total'),
    };
  };
  const metricsLine = async () => {
    const metrics = await (
      await fetch(`http://127.0.0.1:${evaluatorPort}/metrics`)
    )
      .text()
      .catch(() => '');
    return metrics
      .split('\n')
      .filter((l) =>
        /^evaluator_(traffic_events_total|dead_letters_total|preview_records_total|store_failures_total)/.test(
          l,
        ),
      )
      .join(', ');
  };
  /**
   * Starts `processes` fresh evaluators on `schema`, sharing the durable consumer, over a
   * backlog already published (up to `last`), and measures them until they have evaluated all
   * of it: the time from when the first was ready, their CPU summed (each from its own
   * readiness), the highest peak RSS.
   */
  const drain = async (
    schema: string,
    last: number,
    events: number,
    {
      root = ROOT,
      processes = 1,
      label,
      env,
    }: { root?: string; processes?: number; label?: string; env?: Record<string, string> } = {},
  ) => {
    const ready = await Promise.all(
      Array.from({ length: processes }, (_, i) =>
        startEvaluator(
          schema,
          label && processes > 1 ? `${label}-${i + 1}of${processes}` : label,
          root,
          env,
        ),
      ),
    );
    const readyAt = Math.min(...ready);
    const backends = new BackendCpu(pg);
    await backends.sample();
    const { settledAt, doneAt } = await settle(last, schema, events, backends);
    const drainedAtUs = profileClockUs();
    for (const evaluator of evaluators) evaluator.drainedAtUs ??= drainedAtUs;
    await backends.sample();
    running();
    const cpuSeconds = evaluators.reduce(
      (sum, { child, cpuAtReady }) => sum + processStats(child).cpuSeconds - cpuAtReady,
      0,
    );
    const stats = evaluators.map(({ child }) => processStats(child));
    const counting = await countingOf();
    return {
      /** Counting transactions, the batches they counted and the rows they wrote (a baseline build before windows reports none). */
      counting,
      evaluated: events / ((doneAt - readyAt) / 1000),
      settledOnly: events / ((settledAt - readyAt) / 1000),
      peakMb: Math.max(...stats.map((s) => s.peakMb)),
      rssMb: Math.max(...stats.map((s) => s.rssMb)),
      cpuPerEventUs: (cpuSeconds * 1e6) / events,
      pgCpuPerEventUs: (backends.seconds * 1e6) / events,
      /** How much later than the first the last process was ready (its wait is in the time). */
      startLagMs: Math.max(...ready) - readyAt,
    };
  };

  /** Stops every process, drops every schema and stream of the run, removes the baseline's worktree. */
  const close = async () => {
    await stopEvaluators();
    await stop(service);
    for (const schema of [...Object.values(schemas), ...passSchemas])
      await dropSchema(schema).catch(() => undefined);
    await pg.end();
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace}_`) || name.startsWith(`KV_${namespace}_`))
        await jsm.streams.delete(name);
    }
    await nc.close();
    if (baselineRoot)
      execSync(`git worktree remove --force ${JSON.stringify(baselineRoot)}`, {
        cwd: ROOT,
        stdio: 'ignore',
      });
  };

  const harness = {
    baselineRoot,
    ns,
    schemas,
    passSchemas,
    evaluatorEnv,
    nc,
    js,
    jsm,
    pg,
    ask,
    summary,
    note,
    profiles,
    startEvaluator,
    running,
    /** The first evaluator running: its CPU seconds when it became ready. */
    cpuAtReady: () => evaluators[0].cpuAtReady,
    stopEvaluators,
    vacuum,
    sizeOf,
    outboxesEmpty,
    dropSchema,
    stream,
    subject,
    publish,
    purgeTraffic,
    consumerSettled,
    settle,
    metricsLine,
    drain,
    close,
  };
  try {
    await eventually(
      async () =>
        (await ask(`system.v1.experiment-service.info`, {}).catch(() => undefined))
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 250, what: 'experiment-service up' },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return harness;
}

export type Harness = Awaited<ReturnType<typeof openHarness>>;
