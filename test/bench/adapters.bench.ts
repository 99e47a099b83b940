/**
 * Adapter filters (adapter.v1 over NATS): what the check cache saves, in the same run.
 *
 * 1. Chain level, in this process: an EnforcementChain with one AdapterFilter talking over the
 *    real NATS to a bench adapter in its own process (a fork of this file). Time per decision,
 *    one at a time, with the cache warm (every check a hit) and with results the adapter marks
 *    as not reusable (every check a round trip). This is the figure the target is about.
 * 2. Through the gateway: lease creates from concurrent HTTP clients with the enforcement-service
 *    running from main.ts, the chain [MaxLeaseDuration, bench adapter], for projects whose check
 *    results the adapter lets the service reuse and for projects whose results it does not.
 *
 * Target: a warm cached decision at least 5× cheaper than one with an adapter round trip.
 *
 *   npm run bench -- test/bench/adapters.bench.ts
 *   (BENCH_SECONDS=10 BENCH_CLIENTS=32 TEST_NATS_URL=… TEST_POSTGRES_URL=… to change them)
 */
import {
  AdapterCalls,
  AdapterFilter,
  AdapterInstance,
  CheckCache,
  EnforcementChain,
  EnforcementContext,
  LeaseRequest,
  QuotaRequest,
  ReportRecord,
} from '@rollout/enforcement-domain';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually, freePort, uniqueName } from '@rollout/testing';
import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { LoadResult, closedLoop, cpuPerRequest, describeLoad, httpClient, out, percentile, startApp as startMain, stop } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const PROJECTS = 64;
const TOKEN = 'bench-token';
const ADAPTER = 'bench-adapter';
const OK = { code: 0, status: 'OK', message: '', details: [] };
const codec = JSONCodec<Record<string, unknown>>();

// ------------------------------------------------------------------ the adapter (child process)

/**
 * Answers every adapter.v1 call at once: checks allow, reusable for a minute and a billion uses,
 * except for projects starting with `uncached` (valid 0 ms: never reused).
 */
async function runAdapter(): Promise<void> {
  const nc = await connect({ servers: TEST_NATS_URL });
  const prefix = process.env.BENCH_NAMESPACE ? `${process.env.BENCH_NAMESPACE}.` : '';
  let checks = 0;
  nc.subscribe(`${prefix}adapter.v1.${ADAPTER}.*`, {
    queue: ADAPTER,
    callback: (_error, msg) => {
      const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
      const body = codec.decode(msg.data);
      let reply: Record<string, unknown>;
      switch (method) {
        case 'info':
          reply = { name: ADAPTER, description: 'bench', templates: ['check', 'quota', 'report'], sessionBased: true };
          break;
        case 'createSession':
          reply = { sessionId: 'bench-session', status: OK };
          break;
        case 'handleCheck': {
          checks++;
          const project = (body.instance as { context: { projectId: string } }).context.projectId;
          reply = project.startsWith('uncached') ? { status: OK, validDuration: 0, validUseCount: 0 } : { status: OK, validDuration: 60_000, validUseCount: 1_000_000_000 };
          break;
        }
        default:
          reply = { status: OK, quotas: {} };
      }
      msg.respond(codec.encode(reply));
    },
  });
  process.on('message', (m) => {
    if (m === 'checks') process.send?.({ checks });
  });
  process.on('disconnect', () => void nc.close().then(() => process.exit(0)));
  process.send?.('ready');
}

function startAdapter(namespace: string): Promise<{ child: ChildProcess; checks: () => Promise<number> }> {
  const child = fork(__filename, [], {
    execArgv: ['-r', 'reflect-metadata', '-r', '@swc-node/register'],
    env: { ...process.env, BENCH_ADAPTER_CHILD: '1', BENCH_NAMESPACE: namespace },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const checks = () =>
    new Promise<number>((resolve) => {
      const listen = (m: unknown) => {
        if (typeof m === 'object' && m !== null && 'checks' in m) {
          child.off('message', listen);
          resolve((m as { checks: number }).checks);
        }
      };
      child.on('message', listen);
      child.send('checks');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve({ child, checks }) : reject(new Error(String(m)))));
    child.once('exit', (code) => reject(new Error(`bench adapter exited with ${code}`)));
  });
}

// ------------------------------------------------------------------ 1. chain level

/** The adapter port over raw NATS request/reply, as the service's AdapterClient does it. */
function natsCalls(nc: NatsConnection, namespace: string): AdapterCalls {
  const call = async <T>(method: string, body: unknown): Promise<T> => {
    const reply = await nc.request(`${namespace}.adapter.v1.${ADAPTER}.${method}`, codec.encode(body as Record<string, unknown>), { timeout: 2000 });
    return codec.decode(reply.data) as T;
  };
  return {
    check: (_h: string, instance: AdapterInstance) => call('handleCheck', { sessionId: 'bench-session', instance }),
    quota: (_h: string, instance: AdapterInstance, quotaRequest: QuotaRequest) => call('handleQuota', { sessionId: 'bench-session', instance, quotaRequest }),
    report: async (_h: string, instances: ReportRecord[]) => (await call<{ status: typeof OK }>('handleReport', { sessionId: 'bench-session', instances })).status,
  };
}

async function chainLevel(nc: NatsConnection, namespace: string): Promise<{ hitUs: number; missUs: number; hitP99: number; missP99: number }> {
  const clock = { now: () => new Date() };
  const cache = new CheckCache({ now: () => Date.now() });
  const filter = new AdapterFilter({ name: 'bench', adapter: ADAPTER, templates: ['check'] }, natsCalls(nc, namespace), clock, cache);
  const chain = new EnforcementChain([{ filter, mode: 'enforce', timeoutMs: 2000, failurePolicy: 'closed' }], []);
  const lease: LeaseRequest = {
    name: 'bench',
    startDate: new Date(Date.now() + 3_600_000),
    endDate: new Date(Date.now() + 5 * 3_600_000),
    reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
  };
  const context = (project: string, i: number): EnforcementContext => ({ userId: 'bench', projectId: project, regionName: 'RegionOne', requestId: `r${i}` });
  /** Decisions one after another for `seconds`; microseconds per decision (mean, p99). */
  const measure = async (project: string, seconds: number) => {
    const samples: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    for (let i = 0; Date.now() < deadline; i++) {
      const started = process.hrtime.bigint();
      const decision = await chain.checkCreate(context(project, i), lease);
      samples.push(Number(process.hrtime.bigint() - started) / 1000);
      if (!decision.allowed) throw new Error(`bench decision refused: ${JSON.stringify(decision)}`);
    }
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    samples.sort((a, b) => a - b);
    return { mean, p99: percentile(samples, 99) };
  };
  await measure('cached', 1); // warm-up: JIT, the cache entry
  await measure('uncached', 1);
  const seconds = Math.max(2, Math.round(SECONDS / 2));
  const hit = await measure('cached', seconds);
  const miss = await measure('uncached', seconds);
  return { hitUs: hit.mean, missUs: miss.mean, hitP99: hit.p99, missP99: miss.p99 };
}

// ------------------------------------------------------------------ 2. through the gateway

const CHAIN = `
enabled_filters: [MaxLeaseDuration, bench]
filters:
  MaxLeaseDuration: { max_lease_duration: 2592000 }
  bench: { adapter: ${ADAPTER}, templates: [check], failure_policy: closed, timeout_ms: 2000 }
`;

async function main() {
  const namespace = uniqueName('bench');
  const schema = uniqueName('bench_');
  const dir = mkdtempSync(join(tmpdir(), 'adapters-bench-'));
  const configFile = join(dir, 'enforcement.yaml');
  writeFileSync(configFile, CHAIN);
  const gatewayPort = await freePort();
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, HOST: '127.0.0.1' };
  const started: ChildProcess[] = [];
  const nc = await connect({ servers: TEST_NATS_URL });
  const { call, destroy } = httpClient(`http://127.0.0.1:${gatewayPort}`, TOKEN, CLIENTS);
  try {
    const adapter = await startAdapter(namespace);
    started.push(adapter.child);

    out(`adapter filter: chain-level cost per decision, one at a time (${Math.max(2, Math.round(SECONDS / 2))} s each)`);
    const chain = await chainLevel(nc, namespace);
    out(`  cache hit:  ${chain.hitUs.toFixed(1)} µs per decision (p99 ${chain.hitP99.toFixed(1)} µs)`);
    out(`  round trip: ${chain.missUs.toFixed(1)} µs per decision (p99 ${chain.missP99.toFixed(1)} µs)`);
    const ratio = chain.missUs / chain.hitUs;
    out(`  a cached decision is ${ratio.toFixed(1)}× cheaper → target (≥ 5×) ${ratio >= 5 ? 'met' : 'NOT met'}`);

    const gateway = startMain('gateway', { ...common, PORT: String(gatewayPort), AUTH_DEV_TOKEN: TOKEN, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', RPC_TIMEOUT_MS: '10000' }, 'adapters');
    started.push(gateway);
    const service = startMain(
      'enforcement-service',
      { ...common, PORT: String(await freePort()), DATABASE_URL: TEST_POSTGRES_URL, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '16', ENFORCEMENT_CONFIG_FILE: configFile },
      'adapters',
    );
    started.push(service);
    await eventually(async () => ((await call('GET', '/v1/services/enforcement-service').catch(() => 0)) === 200 ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'gateway and enforcement-service up',
    });
    const lease = {
      name: 'bench',
      startDate: new Date(Date.now() + 3_600_000).toISOString(),
      endDate: new Date(Date.now() + 5 * 3_600_000).toISOString(),
      reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
    };
    let seq = 0;
    const create = (kind: 'cached' | 'uncached') => (client: number) => call('POST', `/v1/projects/${kind}-${(client + seq) % PROJECTS}/leases?leaseId=l${++seq}`, lease);
    const run = (kind: 'cached' | 'uncached', seconds: number) => closedLoop(CLIENTS, seconds, create(kind), 200);
    await run('cached', 2); // warm-up: JIT, pools, one cache entry per project
    await run('uncached', 1);
    const measured = async (kind: 'cached' | 'uncached') => {
      const checksBefore = await adapter.checks();
      const { result, cpuMs } = await cpuPerRequest([gateway, service], () => run(kind, SECONDS));
      return { result, cpuMs, checks: (await adapter.checks()) - checksBefore };
    };
    const cached = await measured('cached');
    const uncached = await measured('uncached');
    const line = (name: string, r: { result: LoadResult; cpuMs: number[]; checks: number }) => {
      out(`  ${name}: ${describeLoad(r.result, 'decisions')}`);
      out(`    CPU per decision: gateway ${r.cpuMs[0].toFixed(2)} ms, enforcement-service ${r.cpuMs[1].toFixed(2)} ms; the adapter answered ${r.checks} checks`);
    };
    out(`lease creates through the gateway, chain [MaxLeaseDuration, adapter] (${CLIENTS} clients, ${PROJECTS} projects, ${SECONDS} s each)`);
    line('check cache warm (results reusable)', cached);
    line('no cache (results valid 0 ms: every check a round trip)', uncached);
  } finally {
    destroy();
    for (const child of started.reverse()) await stop(child);
    await nc.close();
    rmSync(dir, { recursive: true, force: true });
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

if (process.env.BENCH_ADAPTER_CHILD) {
  void runAdapter();
} else {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
