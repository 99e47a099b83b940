/**
 * Enforcement decisions through the gateway: lease creates (check_create of the whole chain and
 * the ledger write, one transaction) from 32 clients over 64 projects, with the built-in filters
 * and then with ExternalService pointed at an allow-all stub, next to the gateway's bare round
 * trip in the same run, with the CPU every process spends per request. Target on 2 cores:
 * ≥ 2,000 decisions/s, p99 ≤ 20 ms with the built-in filters. BENCH_BASELINE=<git revision>
 * runs that revision's enforcement-service in turn with this one (baseline, this, this,
 * baseline) on the built-in filters, behind the same gateway.
 *
 *   npm run bench -- test/bench/enforcement.bench.ts   (BENCH_SECONDS, BENCH_CLIENTS, BENCH_BASELINE)
 */
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  uniqueName,
} from '@rollout/testing/kit';
import { type ChildProcess, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  CpuSource,
  LoadResult,
  NATS_SERVER,
  POSTGRES,
  ROOT,
  closedLoop,
  cpuPerRequest,
  describeCpu,
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
const BASELINE = process.env.BENCH_BASELINE;

const BUILT_IN = `
enabled_filters: [MaxLeaseDuration, MaxReservationSize, MaxActiveLeases]
filters:
  MaxLeaseDuration: { max_lease_duration: 2592000 }
  MaxReservationSize: { limits: { "physical:host": 10, "virtual:instance": 50, "virtual:floatingip": 10 } }
  MaxActiveLeases: { max_active_leases: 1000000 }
`;
const withExternal = (endpoint: string) =>
  `${BUILT_IN}
  ExternalService: { endpoint: "${endpoint}", token: stub-token, timeout_ms: 2000 }
`.replace('MaxActiveLeases]', 'MaxActiveLeases, ExternalService]');

const startApp = (app: string, env: Record<string, string>, root?: string) =>
  startMain(app, env, 'enforcement', root);

/** The sources of `revision` in a temporary directory sharing node_modules; returns its root. */
function checkOut(revision: string): string {
  const root = mkdtempSync(join(tmpdir(), 'enforcement-bench-baseline-'));
  out(`checking out baseline ${revision} in ${root}…`);
  execSync(`git archive ${JSON.stringify(revision)} | tar -x -C ${JSON.stringify(root)}`, {
    cwd: ROOT,
  });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}
const cpuParts = ([gateway, service, postgres, nats, load]: number[]): [string, number][] => [
  ['gateway', gateway],
  ['enforcement-service', service],
  ['postgres', postgres],
  ['nats-server', nats],
  ['load generator', load],
];

/** The external policy service: allows everything, as fast as node:http can. */
async function startStub() {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      calls++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`,
    calls: () => calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function main() {
  const namespace = uniqueName('bench');
  const schemas = [uniqueName('bench_'), uniqueName('bench_')];
  const dir = mkdtempSync(join(tmpdir(), 'enforcement-bench-'));
  const baselineRoot = BASELINE ? checkOut(BASELINE) : undefined;
  if (BASELINE) schemas.push(...[0, 1, 2, 3].map(() => uniqueName('bench_')));
  const gatewayPort = await freePort();
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, HOST: '127.0.0.1' };
  const gateway = startApp('gateway', {
    ...common,
    PORT: String(gatewayPort),
    AUTH_DEV_TOKEN: TOKEN,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    RPC_TIMEOUT_MS: '10000',
  });
  const stub = await startStub();
  const base = `http://127.0.0.1:${gatewayPort}`;
  const { call, destroy } = httpClient(base, TOKEN, CLIENTS);

  const startService = async (yaml: string, schema: string, root?: string) => {
    const file = join(dir, `${schema}.yaml`);
    writeFileSync(file, yaml);
    const service = startApp(
      'enforcement-service',
      {
        ...common,
        PORT: String(await freePort()),
        DATABASE_URL: TEST_POSTGRES_URL,
        DATABASE_SCHEMA: schema,
        DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '16',
        ENFORCEMENT_CONFIG_FILE: file,
      },
      root,
    );
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
    return service;
  };

  const run = (
    seconds: number,
    request: (client: number, i: number) => Promise<number>,
    expected: number,
  ) => closedLoop(CLIENTS, seconds, request, expected);

  const start = new Date(Date.now() + 3_600_000).toISOString();
  const end = new Date(Date.now() + 5 * 3_600_000).toISOString();
  const lease = {
    name: 'bench',
    startDate: start,
    endDate: end,
    reservations: [
      { resourceType: 'physical:host', min: 1, max: 2 },
      { resourceType: 'virtual:floatingip', amount: 1, networkId: 'ext' },
    ],
  };
  let seq = 0;
  const create = (client: number) =>
    call('POST', `/v1/projects/bench-${(client + seq) % PROJECTS}/leases?leaseId=l${++seq}`, lease);
  const bare = () => call('GET', '/v1/services/enforcement-service');
  const line = (name: string, r: LoadResult, unit: string) =>
    out(`  ${name}: ${describeLoad(r, unit)}`);

  const services: ChildProcess[] = [];
  try {
    out(
      `enforcement decisions through the gateway (${CLIENTS} clients, ${PROJECTS} projects, ${SECONDS} s each)`,
    );
    if (baselineRoot) {
      // Each in turn behind the same gateway, so neither gains from going first or last.
      const turns = [baselineRoot, undefined, undefined, baselineRoot];
      const rates = { baseline: 0, current: 0 };
      for (const [i, root] of turns.entries()) {
        const service = await startService(BUILT_IN, schemas[2 + i], root);
        services.push(service);
        await run(2, create, 200);
        const result = await run(SECONDS, create, 200);
        await stop(service);
        rates[root ? 'baseline' : 'current'] += result.perSecond;
        line(
          `${root ? `baseline ${BASELINE}` : 'this build'}, built-in filters`,
          result,
          'decisions',
        );
      }
      out(
        `  this build: ${(rates.current / rates.baseline).toFixed(2)} × baseline (decisions/s over both runs of each)`,
      );
    }
    const builtIn = await startService(BUILT_IN, schemas[0]);
    services.push(builtIn);
    await run(2, create, 200); // warm-up: JIT, pools
    await run(1, bare, 200);
    const parts: CpuSource[] = [gateway, builtIn, POSTGRES, NATS_SERVER, 'self'];
    const { result: baseline, cpuMs: bareCpu } = await cpuPerRequest(parts, () =>
      run(SECONDS, bare, 200),
    );
    const { result: decisions, cpuMs: cpu } = await cpuPerRequest(parts, () =>
      run(SECONDS, create, 200),
    );
    await stop(builtIn);

    const external = await startService(withExternal(stub.url), schemas[1]);
    services.push(external);
    await run(2, create, 200);
    const callsBefore = stub.calls();
    const withStub = await run(SECONDS, create, 200);
    const stubCalls = stub.calls() - callsBefore;

    line('bare round trip (GET /v1/services/enforcement-service)', baseline, 'requests');
    out(`    CPU per request: ${describeCpu(cpuParts(bareCpu), 'requests')}`);
    line('lease creates, built-in filters', decisions, 'decisions');
    out(`    CPU per decision: ${describeCpu(cpuParts(cpu), 'decisions')}`);
    line('lease creates, built-in + ExternalService (local stub)', withStub, 'decisions');
    out(`    the stub answered ${stubCalls} check-create calls`);
    out(
      `  target: ≥ 2000 decisions/s with p99 ≤ 20 ms (built-in filters) → ${decisions.perSecond >= 2000 && decisions.p99 <= 20 ? 'met' : 'NOT met'}`,
    );
  } finally {
    destroy();
    for (const service of services) await stop(service);
    await stop(gateway);
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
    if (baselineRoot) rmSync(baselineRoot, { recursive: true, force: true });
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
