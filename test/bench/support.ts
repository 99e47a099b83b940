/**
 * What the HTTP benchmarks share: services started from their main.ts as in production, a
 * cheap keep-alive HTTP client, a closed-loop load generator, and per-process CPU time.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const out = (line: string) => process.stdout.write(`${line}\n`);

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Runs apps/<app>/src/main.ts of the checkout at `root` (another revision's, for a baseline) with
 * its logs silenced. `BENCH_PROFILE=<app>[,<app>…]` writes a CPU profile of that app to
 * /tmp/prof-<bench>. The IPC channel lets `stop` end the service with
 * process.exit (a signal would kill it before the profile is written).
 */
export function startApp(
  app: string,
  env: Record<string, string>,
  bench: string,
  root = ROOT,
): ChildProcess {
  const profile = (process.env.BENCH_PROFILE ?? '').split(',').includes(app)
    ? ['--cpu-prof', `--cpu-prof-dir=/tmp/prof-${bench}`]
    : [];
  return spawn(
    process.execPath,
    [
      ...profile,
      '-r',
      'reflect-metadata',
      '-r',
      '@swc-node/register',
      join(root, `apps/${app}/src/main.ts`),
    ],
    {
      cwd: root,
      env: { ...process.env, ...env, NODE_ENV: 'development', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (child.connected) child.disconnect();
  else child.kill('SIGTERM');
  await exited;
}

/**
 * What a benchmark measures the CPU time of: a service it started, every process of one name
 * on the machine (`postgres`: its backends, WAL writer, checkpointer; `nats-server`), or
 * `self`, the load generator.
 */
export type CpuSource = ChildProcess | { processName: string } | 'self';

export const POSTGRES: CpuSource = { processName: 'postgres' };
export const NATS_SERVER: CpuSource = { processName: 'nats-server' };

/**
 * user + system time of a /proc/<pid>/stat line, in seconds (USER_HZ ticks); with `reaped`, also
 * that of its children that have ended (a Postgres backend that closes passes its time to the
 * postmaster, so the sum over the processes of a name never goes down).
 */
const procCpuSeconds = (stat: string, reaped = false) => {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (reaped ? own + Number(fields[13]) + Number(fields[14]) : own) / 100;
};

/** CPU seconds a source has used so far (Linux /proc). */
export function cpuSeconds(source: CpuSource): number {
  if (source === 'self') {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
  if (source instanceof ChildProcess)
    return procCpuSeconds(readFileSync(`/proc/${source.pid}/stat`, 'utf8'));
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === source.processName)
        total += procCpuSeconds(stat, true);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return total;
}

/** CPU milliseconds per request each source spent while `measure` ran. */
export async function cpuPerRequest<T extends { count: number }>(
  sources: CpuSource[],
  measure: () => Promise<T>,
): Promise<{ result: T; cpuMs: number[] }> {
  const before = sources.map(cpuSeconds);
  const result = await measure();
  const cpuMs = sources.map(
    (source, i) => ((cpuSeconds(source) - before[i]) * 1000) / Math.max(1, result.count),
  );
  return { result, cpuMs };
}

/**
 * "gateway 0.90 ms, … ; all 3.50 ms: at most 571/s on 2 cores": what each part costs per
 * request and the rate the machine's cores could sustain at that cost if nothing waited.
 */
export function describeCpu(parts: [label: string, ms: number][], unit: string): string {
  const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
  const cores = availableParallelism();
  return `${parts.map(([label, ms]) => `${label} ${ms.toFixed(2)} ms`).join(', ')}; all ${total.toFixed(2)} ms: at most ${((cores * 1000) / total).toFixed(0)} ${unit}/s on ${cores} cores`;
}

export interface HttpClient {
  /** Sends one request and resolves with the status once the whole response has arrived. */
  call(method: string, path: string, body?: unknown): Promise<number>;
  destroy(): void;
}

/**
 * A keep-alive node:http client: on 2 shared cores the load generator's own CPU counts, and
 * fetch costs several times more per request than the plain client.
 */
export function httpClient(
  base: string,
  token: string,
  sockets: number,
  extraHeaders: Record<string, string> = {},
): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return {
    call: (method, path, body) =>
      new Promise<number>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const request = httpRequest(`${base}${path}`, {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            ...extraHeaders,
            ...(payload ? { 'content-length': Buffer.byteLength(payload) } : {}),
          },
        });
        request.once('error', reject);
        request.once('response', (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode ?? 0));
        });
        request.end(payload);
      }),
    destroy: () => agent.destroy(),
  };
}

export interface LoadResult {
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  count: number;
  failures: number;
}

/**
 * `clients` concurrent loops, each sending its next request as soon as the previous one
 * answered, for `seconds`. A request whose status is not `expected` counts as a failure.
 */
export async function closedLoop(
  clients: number,
  seconds: number,
  request: (client: number, i: number) => Promise<number>,
  expected: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const started = performance.now();
        const status = await request(client, i);
        latencies.push(performance.now() - started);
        if (status !== expected) failures++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? 0,
    count: latencies.length,
    failures,
  };
}

export const describeLoad = (r: LoadResult, unit: string) =>
  `${r.perSecond.toFixed(0)} ${unit}/s, p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(0)} ms, ${r.count} requests, ${r.failures} failed`;

/** A V8 .cpuprofile (what --cpu-prof writes), as far as self times need it. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  /** µs on the monotonic clock, as process.hrtime() reads it. */
  startTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Now on the clock of a CPU profile's timestamps (CLOCK_MONOTONIC, µs). */
export const profileClockUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Shares of a CPU profile's sampled time (idle excluded) spent in the self time of the functions
 * each pattern matches: e.g. `{ gc: /^\(garbage collector\)$/ }`. Only the samples within
 * `window` (profileClockUs() readings) count, unless none is: then the whole profile (`whole`).
 * `sampledMs` is the non-idle time counted. A sample lasts until the next one, as DevTools
 * counts it.
 */
export function profileShares<K extends string>(
  path: string,
  patterns: Record<K, RegExp>,
  window?: { fromUs: number; toUs: number },
): { sampledMs: number; whole: boolean; shares: Record<K, number> } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfUs = (inWindow: (at: number) => boolean) => {
    const self = new Map<number, number>();
    let at = profile.startTime;
    for (let i = 0; i < samples.length; i++) {
      at += deltas[i] ?? 0;
      if (inWindow(at)) self.set(samples[i], (self.get(samples[i]) ?? 0) + (deltas[i + 1] ?? 0));
    }
    return self;
  };
  let self = window
    ? selfUs((at) => at >= window.fromUs && at <= window.toUs)
    : new Map<number, number>();
  const whole = self.size === 0;
  if (whole) self = selfUs(() => true);
  const keys = Object.keys(patterns) as K[];
  const matched = Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
  let sampled = 0;
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName;
    const us = self.get(node.id) ?? 0;
    if (name === '(idle)') continue;
    sampled += us;
    for (const key of keys) if (patterns[key].test(name)) matched[key] += us;
  }
  const shares = Object.fromEntries(
    keys.map((key) => [key, sampled ? matched[key] / sampled : 0]),
  ) as Record<K, number>;
  return { sampledMs: sampled / 1000, whole, shares };
}
