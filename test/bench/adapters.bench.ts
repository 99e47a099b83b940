/**
 * What the adapter check cache saves, in the same run: the enforcement-service (chain
 * [MaxLeaseDuration, bench adapter]) and the adapter as processes on real NATS. A result is
 * reused only for its own lease, so cached decisions are Blazar asking again about one lease per
 * project (`cached-*`); uncached ones are new leases whose results are valid 0 ms. Target: a warm
 * cached decision ≥ 5× cheaper, timed by the service's own chain histogram so that the gateway and
 * the ledger write do not drown it.
 *   npm run bench -- test/bench/adapters.bench.ts   (BENCH_SECONDS, BENCH_CLIENTS)
 */
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  uniqueName,
} from '@rollout/testing/kit';
import { ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, connect } from 'nats';
import { Client } from 'pg';
import {
  LoadResult,
  closedLoop,
  cpuPerRequest,
  describeLoad,
  httpClient,
  out,
  startApp as startMain,
  stop,
} from './support';

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
          reply = {
            name: ADAPTER,
            description: 'bench',
            templates: ['check', 'quota', 'report'],
            sessionBased: true,
          };
          break;
        case 'createSession':
          reply = { sessionId: 'bench-session', status: OK };
          break;
        case 'handleCheck': {
          checks++;
          const project = (body.instance as { context: { projectId: string } }).context.projectId;
          reply = project.startsWith('uncached')
            ? { status: OK, validDuration: 0, validUseCount: 0 }
            : { status: OK, validDuration: 60_000, validUseCount: 1_000_000_000 };
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

function startAdapter(
  namespace: string,
): Promise<{ child: ChildProcess; checks: () => Promise<number> }> {
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
    child.once('message', (m) =>
      m === 'ready' ? resolve({ child, checks }) : reject(new Error(String(m))),
    );
    child.once('exit', (code) => reject(new Error(`bench adapter exited with ${code}`)));
  });
}

/** Sum and count of the service's chain-duration histogram for check_create. */
async function chainHistogram(metricsUrl: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string) => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && l.includes('hook="check_create"'));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  return {
    sum: value('enforcement_chain_duration_seconds_sum'),
    count: value('enforcement_chain_duration_seconds_count'),
  };
}

// ------------------------------------------------------------------ the run

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
  const { call, destroy } = httpClient(`http://127.0.0.1:${gatewayPort}`, TOKEN, CLIENTS, {
    'x-auth-token': TOKEN,
  });
  try {
    const adapter = await startAdapter(namespace);
    started.push(adapter.child);

    const gateway = startMain(
      'gateway',
      {
        ...common,
        PORT: String(gatewayPort),
        AUTH_DEV_TOKEN: TOKEN,
        BLAZAR_AUTH_TOKEN_SHA256: createHash('sha256').update(TOKEN).digest('hex'),
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
        RPC_TIMEOUT_MS: '10000',
      },
      'adapters',
    );
    started.push(gateway);
    const servicePort = await freePort();
    const service = startMain(
      'enforcement-service',
      {
        ...common,
        PORT: String(servicePort),
        DATABASE_URL: TEST_POSTGRES_URL,
        DATABASE_SCHEMA: schema,
        DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '16',
        ENFORCEMENT_CONFIG_FILE: configFile,
      },
      'adapters',
    );
    started.push(service);
    await eventually(
      async () =>
        (await call('GET', '/v1/services/enforcement-service').catch(() => 0)) === 200
          ? true
          : undefined,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        what: 'gateway and enforcement-service up',
      },
    );
    const lease = {
      name: 'bench',
      startDate: new Date(Date.now() + 3_600_000).toISOString(),
      endDate: new Date(Date.now() + 5 * 3_600_000).toISOString(),
      reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
    };
    const blazarLease = {
      name: 'bench',
      start_date: lease.startDate,
      end_date: lease.endDate,
      reservations: [{ resource_type: 'physical:host', min: 1, max: 2 }],
    };
    let seq = 0;
    const create = (kind: 'cached' | 'uncached') => (client: number) => {
      const project = `${kind}-${(client + ++seq) % PROJECTS}`;
      if (kind === 'cached')
        return call('POST', '/v1/blazar/check-create', {
          context: { user_id: 'bench', project_id: project },
          lease: blazarLease,
        });
      return call('POST', `/v1/projects/${project}/leases?leaseId=l${seq}`, lease);
    };
    const run = (kind: 'cached' | 'uncached', seconds: number, clients = CLIENTS) =>
      closedLoop(clients, seconds, create(kind), kind === 'cached' ? 204 : 200);
    await run('cached', 2); // warm-up: JIT, pools, one cache entry per project
    await run('uncached', 1);

    // 1. Chain level: one decision at a time, the chain timed inside the service.
    const chainCost = async (kind: 'cached' | 'uncached') => {
      const before = await chainHistogram(`http://127.0.0.1:${servicePort}/metrics`);
      await run(kind, Math.max(2, Math.round(SECONDS / 2)), 1);
      const after = await chainHistogram(`http://127.0.0.1:${servicePort}/metrics`);
      return ((after.sum - before.sum) / Math.max(1, after.count - before.count)) * 1e6;
    };
    const hitUs = await chainCost('cached');
    const missUs = await chainCost('uncached');
    // Wall-clock figures: on a shared machine, other processes' load shows in them.
    out(`machine load average (1 min): ${loadavg()[0].toFixed(2)}`);
    out(
      `adapter filter: cost of the chain per decision, one at a time, timed in the enforcement-service (${Math.max(2, Math.round(SECONDS / 2))} s each)`,
    );
    out(`  check cache warm:   ${hitUs.toFixed(0)} µs per decision`);
    out(`  adapter round trip: ${missUs.toFixed(0)} µs per decision`);
    const ratio = missUs / hitUs;
    out(
      `  a cached decision is ${ratio.toFixed(1)}× cheaper → target (≥ 5×) ${ratio >= 5 ? 'met' : 'NOT met'}`,
    );

    // 2. Throughput through the gateway.
    const measured = async (kind: 'cached' | 'uncached') => {
      const checksBefore = await adapter.checks();
      const { result, cpuMs } = await cpuPerRequest([gateway, service], () => run(kind, SECONDS));
      return { result, cpuMs, checks: (await adapter.checks()) - checksBefore };
    };
    const cached = await measured('cached');
    const uncached = await measured('uncached');
    const line = (name: string, r: { result: LoadResult; cpuMs: number[]; checks: number }) => {
      out(`  ${name}: ${describeLoad(r.result, 'decisions')}`);
      out(
        `    CPU per decision: gateway ${r.cpuMs[0].toFixed(2)} ms, enforcement-service ${r.cpuMs[1].toFixed(2)} ms; the adapter answered ${r.checks} checks`,
      );
    };
    out(
      `check_create decisions through the gateway, chain [MaxLeaseDuration, adapter] (${CLIENTS} clients, ${PROJECTS} projects, ${SECONDS} s each)`,
    );
    line('check cache warm (Blazar asking again about one lease per project)', cached);
    line(
      'no cache (new leases through the API, results valid 0 ms: every check a round trip)',
      uncached,
    );
  } finally {
    destroy();
    for (const child of started.reverse()) await stop(child);
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
