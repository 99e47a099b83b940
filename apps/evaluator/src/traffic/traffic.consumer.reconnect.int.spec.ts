import { FirewallRule } from '@rollout/contracts';
import {
  ServiceProcess,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  portOpen,
} from '@rollout/testing/kit';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import {
  Isolation,
  cleanUp,
  isolation,
  rpcClient,
  startEvaluatorProcess,
} from '../../test/evaluator-app';
import { previewReport } from '../../test/evaluator-probes';
import { ExperimentWorld } from '../../test/experiment-world';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/**
 * The evaluator rides out its dependencies restarting: a NATS server of the test's own (so it
 * can be killed) and the machine's Postgres, whose connections to this evaluator are cut as a
 * restart would. Nothing is lost and nothing is counted twice.
 */
const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const BLOCK: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...LIVE,
];
const events = (count: number, offset: number) =>
  Array.from({ length: count }, (_, i) =>
    trafficEvent(offset + i, { srcIp: `10.0.${i % 4}.${(i >> 2) & 255}` }),
  );

/** The Postgres backends serving a process: its TCP connections to port 5432, by local port. */
function postgresClientPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode): inode is string => inode !== undefined),
  );
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !inodes.has(fields[9])) continue;
      const [local, remote] = [fields[1], fields[2]].map((a) => parseInt(a.split(':')[1], 16));
      if (remote === 5432) ports.push(local);
    }
  }
  return ports;
}

describe('dependencies restarting mid-stream', () => {
  let iso: Isolation;
  let nc: NatsConnection;
  let world: ExperimentWorld;
  let evaluator: ServiceProcess | undefined;
  let nats: ChildProcess | undefined;
  let natsDir: string | undefined;
  let natsUrl: string;

  const report = () => previewReport(rpcClient(nc, iso), world, 'block', 'web', 10_000);
  const evaluated = async () =>
    (await report()).configurations.reduce((sum, c) => sum + c.evaluated, 0);

  async function startNats(port: number, dir: string) {
    nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], {
      stdio: 'ignore',
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
    });
    await eventually(async () => ((await portOpen(port)) ? true : undefined), {
      what: 'nats-server listening',
    });
  }

  async function startEvaluator(natsUrlOverride?: string) {
    evaluator = (
      await startEvaluatorProcess(iso, natsUrlOverride ? { NATS_URL: natsUrlOverride } : {})
    ).process;
  }

  afterEach(async () => {
    await evaluator?.stop();
    evaluator = undefined;
    await nc?.close().catch(() => undefined);
    if (nats) {
      nats.kill('SIGTERM');
      nats = undefined;
    }
    if (natsDir) rmSync(natsDir, { recursive: true, force: true });
    natsDir = undefined;
    if (iso) await cleanUp({ ...iso, namespace: natsUrl ? '' : iso.namespace });
  });

  it('reconnects to a NATS server that was killed and restarted, and evaluates every event once', async () => {
    iso = isolation();
    const port = await freePort();
    natsDir = mkdtempSync(join(tmpdir(), 'evaluator-nats-'));
    natsUrl = `nats://127.0.0.1:${port}`;
    await startNats(port, natsDir);
    nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    world = new ExperimentWorld(nc, iso);
    await world.createBucket();
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    await startEvaluator(natsUrl);

    await publishTraffic(nc, iso, 'web', events(4_000, 0));
    await eventually(async () => ((await evaluated()) > 0 ? true : undefined), {
      what: 'evaluating',
    });
    (nats as ChildProcess).kill('SIGKILL');
    await new Promise((resolve) => (nats as ChildProcess).once('exit', resolve));
    await startNats(port, natsDir);

    const last = await eventually(
      () => publishTraffic(nc, iso, 'web', events(4_000, 4_000)).catch(() => undefined),
      { timeoutMs: 20_000, what: 'publishing after the restart' },
    );
    await eventually(() => settledUpTo(nc, iso, last), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'every event settled',
    });
    const [configuration] = (await report()).configurations;
    expect(configuration).toMatchObject({
      evaluated: 8_000,
      changed: 2_000,
      allowToDeny: 2_000,
      unchangedAllow: 6_000,
    });
  }, 120_000);

  it('rides out its Postgres connections being cut, as a Postgres restart does, and evaluates every event once', async () => {
    iso = isolation();
    natsUrl = '';
    nc = await connect({ servers: TEST_NATS_URL });
    world = new ExperimentWorld(nc, iso);
    await world.createBucket();
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    await startEvaluator();

    const publishing = publishTraffic(nc, iso, 'web', events(20_000, 0));
    await eventually(async () => ((await evaluated()) > 0 ? true : undefined), {
      what: 'evaluating',
    });
    const admin = new Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    let cut = 0;
    try {
      for (let round = 0; round < 3; round++) {
        const ports = postgresClientPorts(evaluator!.child.pid as number);
        const { rowCount } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1::int[])`,
          [ports],
        );
        cut += rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    } finally {
      await admin.end();
    }
    expect(cut).toBeGreaterThan(0);
    const last = await publishing;
    await eventually(() => settledUpTo(nc, iso, last), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'every event settled',
    });
    const [configuration] = (await report()).configurations;
    expect(configuration).toMatchObject({
      evaluated: 20_000,
      changed: 5_000,
      allowToDeny: 5_000,
      unchangedAllow: 15_000,
    });
  }, 120_000);
});
