/**
 * Experiment commands through the gateway: startPreview/stopPreview over 100 experiments from 32
 * clients, each owning its experiments so no command loses a compare-and-set race; next to the
 * raw event-store append rate (same concurrency, Postgres and run). Target on 2 cores: ≥ 1,000
 * commands/s, p99 ≤ 50 ms. BENCH_BASELINE=<git revision> runs that revision's experiment-service
 * beside this one, measured in turn (baseline, this, this, baseline).
 *   npm run bench -- test/bench/experiments.bench.ts
 *   (BENCH_SECONDS, BENCH_CLIENTS, BENCH_WARM_UP_SECONDS, BENCH_BASELINE)
 */
import { provisionFromEnv } from '@rollout/provision';
import { CreateEventStore1764000000000, EventStore } from '@rollout/platform/event-store';
import { openDataSource } from '@rollout/platform/postgres';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { execSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
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

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
/** Commands/s climb for about 3 s after the services start (JIT, Postgres backends' caches). */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 5);
const POLICIES = 10;
const PER_POLICY = 10;
const TOKEN = 'bench-token';
const BASELINE = process.env.BENCH_BASELINE;

const startApp = (app: string, env: Record<string, string>, root?: string) =>
  startMain(app, env, 'experiments', root);

/** A checkout of `revision` in a temporary worktree sharing node_modules; returns its root. */
function checkOut(revision: string): string {
  const root = join(tmpdir(), `rollout-bench-baseline-${revision.replace(/[^\w.-]/g, '_')}`);
  out(`checking out baseline ${revision} in ${root}…`);
  execSync(
    `git worktree add --force --detach ${JSON.stringify(root)} ${JSON.stringify(revision)}`,
    { cwd: ROOT, stdio: 'ignore' },
  );
  execSync(
    `ln -sfn ${JSON.stringify(join(ROOT, 'node_modules'))} ${JSON.stringify(join(root, 'node_modules'))}`,
  );
  return root;
}

/**
 * Raw event store, the way the service's commands use it: each worker appends one event to one
 * of its streams with compare-and-set at the version it last appended there (the service's
 * cached state), one statement and no transaction held open. Also CPU per append of Postgres
 * and of this process, the client.
 */
async function appendRate(schema: string, seconds: number) {
  const dataSource = await openDataSource({
    url: TEST_POSTGRES_URL,
    schema,
    poolSize: CLIENTS,
    applicationName: 'bench',
    migrations: [CreateEventStore1764000000000],
  });
  const store = new EventStore(dataSource);
  const versions = new Map<string, number>();
  try {
    return await cpuPerRequest([POSTGRES, 'self'], () =>
      closedLoop(
        CLIENTS,
        seconds,
        async (worker, i) => {
          const stream = `bench/${worker}/${i % 4}`;
          const version = versions.get(stream) ?? 0;
          const time = new Date().toISOString();
          await store.appendAtomically(stream, version, [
            { type: 'PreviewStarted', data: { time }, metadata: { actor: 'bench' } },
          ]);
          versions.set(stream, version + 1);
          return 200;
        },
        200,
      ),
    );
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A gateway and an experiment-service (of the checkout at `root`) of their own, on a fresh schema
 * and namespace, with its experiments created; `measure` warms up, then runs the commands for
 * `SECONDS`: commands/s and latency, and CPU per command of each part.
 */
async function startSystem(root?: string) {
  const namespace = uniqueName('bench');
  const schema = uniqueName('bench_');
  const port = await freePort();
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, HOST: '127.0.0.1' };
  // The provisioning step, before the services (docs/bus-security.md).
  await provisionFromEnv({ ...common, BUS_PROVISION_SERVICES: 'experiment-service' });
  const service = startApp(
    'experiment-service',
    {
      ...common,
      PORT: String(await freePort()),
      DATABASE_URL: TEST_POSTGRES_URL,
      DATABASE_SCHEMA: schema,
      DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '16',
    },
    root,
  );
  const gateway = startApp('gateway', {
    ...common,
    PORT: String(port),
    AUTH_DEV_TOKEN: TOKEN,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    RPC_TIMEOUT_MS: '10000',
  });
  const base = `http://127.0.0.1:${port}/v1/projects/bench/locations/global/firewallPolicies`;
  const { call, destroy } = httpClient(base, TOKEN, CLIENTS);
  const close = async () => {
    destroy();
    await stop(gateway);
    await stop(service);
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    await removeTestResources({ namespace });
  };
  try {
    await eventually(
      async () => ((await call('GET', '').catch(() => 0)) === 200 ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 250, what: 'gateway and experiment-service up' },
    );
    const experiments: string[] = [];
    const rules = [
      {
        priority: 100,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
        },
      },
    ];
    for (let p = 0; p < POLICIES; p++) {
      if ((await call('POST', `?firewallPolicyId=policy-${p}`, { rules })) !== 200)
        throw new Error('cannot create a policy');
      for (let e = 0; e < PER_POLICY; e++) {
        if (
          (await call('POST', `/policy-${p}/experiments?experimentId=exp-${e}`, {
            firewallPolicy: { rules: [] },
          })) !== 200
        )
          throw new Error('cannot create an experiment');
        experiments.push(`/policy-${p}/experiments/exp-${e}`);
      }
    }

    /** Each client cycles through its own experiments: start, stop, start, stop... */
    const owned = Array.from({ length: CLIENTS }, (_, client) =>
      experiments.filter((_, n) => n % CLIENTS === client),
    );
    const active = new Set<string>();
    const run = (seconds: number) =>
      closedLoop(
        CLIENTS,
        seconds,
        async (client: number, i: number) => {
          const experiment = owned[client][i % owned[client].length];
          const verb = active.has(experiment) ? 'stopPreview' : 'startPreview';
          const status = await call('POST', `${experiment}:${verb}`);
          if (status === 200) {
            if (verb === 'startPreview') active.add(experiment);
            else active.delete(experiment);
          }
          return status;
        },
        200,
      );

    const measure = async () => {
      // Warm-up: JIT, connection pools, each experiment's state in the service; and the work the
      // other system's last run left behind (its relays catching up) is done before measuring.
      await run(WARM_UP_SECONDS);
      const { result: commands, cpuMs } = await cpuPerRequest(
        [gateway, service, POSTGRES, NATS_SERVER, 'self'],
        () => run(SECONDS),
      );
      return { commands, cpuMs };
    };
    return { experiments: experiments.length, measure, close };
  } catch (error) {
    await close();
    throw error;
  }
}

type CommandRate = Awaited<ReturnType<Awaited<ReturnType<typeof startSystem>>['measure']>>;

function cpuPerCommand([gateway, service, postgres, nats, load]: number[]): string {
  return describeCpu(
    [
      ['gateway', gateway],
      ['experiment-service', service],
      ['postgres', postgres],
      ['nats-server', nats],
      ['load generator', load],
    ],
    'commands',
  );
}

async function main() {
  const baselineRoot = BASELINE ? checkOut(BASELINE) : undefined;
  const rawSchema = uniqueName('bench_raw_');
  const systems: Awaited<ReturnType<typeof startSystem>>[] = [];
  try {
    const current = await startSystem();
    systems.push(current);
    const before = baselineRoot ? await startSystem(baselineRoot) : undefined;
    if (before) systems.push(before);
    // Both systems run side by side, measured in turn (baseline, this, this, baseline), so that
    // neither gains from going first or last on a machine whose speed drifts.
    const baselineRuns: CommandRate[] = [];
    const runs: CommandRate[] = [];
    for (const system of before ? [before, current, current, before] : [current]) {
      const run = await system.measure();
      (system === before ? baselineRuns : runs).push(run);
      if (before)
        out(
          `  ${system === before ? `baseline ${BASELINE}` : 'this build'}: ${describeLoad(run.commands, 'commands')}`,
        );
    }
    const { experiments } = current;
    const { commands, cpuMs } = runs[runs.length - 1];
    const baseline = baselineRuns.at(-1);
    const raw = await appendRate(rawSchema, Math.min(SECONDS, 10));
    out(
      `experiment commands through the gateway (${CLIENTS} clients, ${experiments} experiments, ${SECONDS} s)`,
    );
    out(`  startPreview/stopPreview: ${describeLoad(commands, 'commands')}`);
    out(`    CPU per command: ${cpuPerCommand(cpuMs)}`);
    if (baseline) {
      out(
        `  baseline ${BASELINE}'s experiment-service, same run: ${describeLoad(baseline.commands, 'commands')}`,
      );
      out(`    CPU per command: ${cpuPerCommand(baseline.cpuMs)}`);
      const total = (each: { commands: { perSecond: number } }[]) =>
        each.reduce((sum, run) => sum + run.commands.perSecond, 0);
      out(
        `    this build: ${(total(runs) / total(baselineRuns)).toFixed(2)} × baseline (commands/s over both runs of each)`,
      );
    }
    out(
      `  baseline, raw event-store appends (one compare-and-set append each, ${CLIENTS} at a time): ${describeLoad(raw.result, 'appends')}`,
    );
    out(
      `    CPU per append: ${describeCpu(
        [
          ['postgres', raw.cpuMs[0]],
          ['client', raw.cpuMs[1]],
        ],
        'appends',
      )}`,
    );
    out(
      `  target: ≥ 1000 commands/s with p99 ≤ 50 ms → ${commands.perSecond >= 1000 && commands.p99 <= 50 ? 'met' : 'NOT met'}`,
    );
  } finally {
    for (const system of systems) await system.close();
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${rawSchema}" CASCADE`);
    await client.end();
    if (baselineRoot)
      execSync(`git worktree remove --force ${JSON.stringify(baselineRoot)}`, {
        cwd: ROOT,
        stdio: 'ignore',
      });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
