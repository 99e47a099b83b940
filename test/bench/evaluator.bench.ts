/**
 * The evaluator end to end, with one live policy of 1,000 rules and traffic drawn from a pool of
 * distinct flows (direction, source and destination address, protocol and destination port fixed
 * per flow; the source port and the event id vary per event, ids unique). The experiment-service
 * and the evaluator run as their own processes from the build output (built first), the
 * evaluator with the Node options of its Kubernetes config; every measure of the evaluator is
 * taken on a fresh process (its peak RSS, VmHWM, is that scenario's).
 *
 * 1. Throughput: BENCH_EVENTS events (200,000) from BENCH_FLOWS distinct flows (100,000), with 1
 *    ACTIVE experiment, with 1 again as traffic.v2alpha batches of 100 events (the next major,
 *    beside traffic.v1 on the same stream and consumer), and with 3 ACTIVE. For each, the events/s
 *    the evaluator evaluates with its report durable and every preview-log batch on PREVIEW_LOGS,
 *    next to the raw JetStream pull-consume-and-ack rate of the same events measured in the same
 *    run, just before. Targets: ≥ 0.8 × raw with 1 ACTIVE experiment, ≥ 0.6 × raw with 3.
 * 2. State-change freshness: after startPreview, an experiment update, stopPreview, a live policy
 *    update or a commit returns, how late traffic can still be evaluated against the old state
 *    (probe events published every few ms, their records read back from PREVIEW_LOGS, the
 *    complete per-event log; p50/p99/max). Target: p99 ≤ 200 ms.
 * 3. Storage: with 3 ACTIVE experiments, BENCH_STORAGE_ROUNDS rounds (4) of BENCH_STORAGE_EVENTS
 *    events (250,000) from 1,000 and then from 100,000 distinct flows (BENCH_STORAGE_FLOWS), each
 *    pass into an empty preview schema. After each round (everything settled), every table of
 *    the schema is VACUUMed and the schema measured: the sum of pg_total_relation_size over its
 *    tables, the bytes the round added per million events, and every table's row count.
 *    Targets: at 1,000 flows under 20 MB per million events (what the pass added over all its
 *    events: a million by default); flat growth once the flows repeat (each later round adds at
 *    most 10% of what round 1 added, or under 1 MB).
 * 4. Memory: BENCH_MEMORY_EVENTS events (2,000,000) with 3 ACTIVE experiments from
 *    BENCH_MEMORY_FLOWS distinct flows (100,000), once as traffic.v1 and once as traffic.v2alpha
 *    batches of 100: the evaluator's peak RSS. Target: under 300 MB. BENCH_SKIP_MEMORY=1 skips it
 *    (it dominates the run time); BENCH_SKIP_STORAGE=1 skips the storage passes and
 *    BENCH_FRESHNESS_ROUNDS=0 the freshness.
 *
 * BENCH_BASELINE=<git revision> also builds that revision (in a temporary worktree) and, after
 * each throughput scenario, lets its evaluator drain the same backlog from the start (the durable
 * consumer recreated, a fresh preview schema): the same-run ratio of this build to that one. With
 * the revision before the report's insight sections, it is what they cost.
 *
 * A share of the flows (BENCH_RULE_FLOWS, 0.8) is aimed at a random rule of the live policy, so a
 * fair share of decisions change and the changed flows the evaluator keeps grow with the flows.
 *
 * Every scenario also prints the evaluator's CPU per event and that of its Postgres backends
 * (application_name = 'evaluator'). A summary block at the end lists every figure with its
 * target, met or NOT met.
 *
 *   npm run bench -- test/bench/evaluator.bench.ts
 *   (BENCH_EVENTS, BENCH_FLOWS, BENCH_FRESHNESS_ROUNDS, BENCH_STORAGE_EVENTS, BENCH_STORAGE_ROUNDS,
 *    BENCH_STORAGE_FLOWS=1000,100000, BENCH_MEMORY_EVENTS, BENCH_MEMORY_FLOWS, BENCH_RULE_FLOWS, BENCH_SKIP_MEMORY=1,
 *    BENCH_SKIP_STORAGE=1, BENCH_BASELINE, BENCH_LOG_LEVEL, BENCH_PROFILE=evaluator, TEST_NATS_URL, TEST_POSTGRES_URL)
 */
import {
  CommitRequest,
  CreateExperimentRequest,
  CreatePolicyRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  Operation,
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
  PreviewLogBatch,
  PreviewLogRecord,
  PreviewReport,
  PreviewRequest,
  TRAFFIC_STREAM,
  TrafficEvent,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
  previewLogSubject,
  trafficSubject,
} from '@rollout/contracts';
import {
  TrafficEvent as TrafficEventV2alpha,
  trafficV2alphaSubject,
} from '@rollout/contracts-alpha';
import { NatsNamespace, NatsRpcClient, provisionFromEnv } from '@rollout/platform/nats';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  uniqueName,
} from '@rollout/testing/kit';
import { AckPolicy, DeliverPolicy, NatsConnection, connect } from 'nats';
import { ChildProcess, execSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const numberOf = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return Math.floor(value);
};
const EVENTS = numberOf('BENCH_EVENTS', 200_000);
const FLOWS = numberOf('BENCH_FLOWS', 100_000);
const ROUNDS = numberOf('BENCH_FRESHNESS_ROUNDS', 12);
const STORAGE_EVENTS = numberOf('BENCH_STORAGE_EVENTS', 250_000);
const STORAGE_ROUNDS = numberOf('BENCH_STORAGE_ROUNDS', 4);
const STORAGE_FLOWS = (process.env.BENCH_STORAGE_FLOWS ?? '1000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const MEMORY_EVENTS = numberOf('BENCH_MEMORY_EVENTS', 2_000_000);
const MEMORY_FLOWS = numberOf('BENCH_MEMORY_FLOWS', 100_000);
const SKIP_MEMORY = process.env.BENCH_SKIP_MEMORY === '1';
/** The share of flows aimed at a rule of the live policy (see flowPool). */
const RULE_FLOWS = Math.min(1, Number(process.env.BENCH_RULE_FLOWS ?? 0.8));
const SKIP_STORAGE = process.env.BENCH_SKIP_STORAGE === '1';
/** A git revision whose evaluator runs every throughput scenario again, on the same backlog, for a same-run comparison. */
const BASELINE = process.env.BENCH_BASELINE;
/** Events per traffic.v2alpha message. */
const BATCH = 100;
const TARGETS = {
  /** events/s evaluated over raw JetStream pull+ack, by ACTIVE experiments. */
  ratio: { 1: 0.8, 3: 0.6 } as Record<number, number>,
  /** MB added to the preview schema per million events (over all rounds of the pass) at 1,000 distinct flows. */
  storageMbPerMillion: 20,
  storageAtFlows: 1000,
  /** A later round is flat when it adds at most this share of round 1's bytes, or under FLAT_FLOOR_MB. */
  flatShare: 0.1,
  flatFloorMb: 1,
  rssMb: 300,
  freshnessP99Ms: 200,
};
const PROBE_EVERY_MS = 4;
const PROBE_FOR_MS = 400;
const MB = 1024 ** 2;
const ROOT = join(__dirname, '..', '..');
const out = (line: string) => process.stdout.write(`${line}\n`);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A small deterministic PRNG (mulberry32), so every run evaluates the same policy and traffic. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 1,000 rules as a real policy has them: ranges of 10/8 and 172.16/12, ports, tags, some EGRESS. */
function liveRules(random: () => number): FirewallRule[] {
  const ports = ['22', '80', '443', '3306', '5432', '6379', '8000-8080', '9000-9100'];
  return Array.from({ length: 1000 }, (_, i): FirewallRule => {
    const prefix = 16 + Math.floor(random() * 13);
    const base =
      random() < 0.7
        ? `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.0`
        : `172.${16 + Math.floor(random() * 16)}.${Math.floor(random() * 256)}.0`;
    return {
      priority: 1000 + i * 10,
      direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
      action: random() < 0.5 ? 'allow' : 'deny',
      match: {
        srcIpRanges: [`${base}/${prefix}`],
        ...(random() < 0.3 ? { destIpRanges: [`192.168.${Math.floor(random() * 256)}.0/24`] } : {}),
        layer4Configs: [
          {
            ipProtocol: random() < 0.8 ? 'tcp' : 'udp',
            ports: [ports[Math.floor(random() * ports.length)]],
          },
        ],
      },
      ...(random() < 0.2 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
    };
  });
}

/** What a flow fixes: what previewFlows aggregates by (with the deciding rules), and the instance's tags. */
type Flow = Pick<
  TrafficEvent,
  'direction' | 'srcIp' | 'destIp' | 'protocol' | 'destPort' | 'targetTags'
>;

/** An IPv4 address as a number, and back. */
const ipv4 = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
/** A random address inside `cidr`. */
const inRange = (cidr: string, random: () => number) => {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return dotted(ipv4(base) - (ipv4(base) % size) + Math.floor(random() * size));
};

/**
 * `count` distinct flows (by direction, addresses, protocol and destination port), in random
 * order. A share of them (BENCH_RULE_FLOWS, 0.8) is aimed at a random rule of the live policy
 * (its direction, an address in its ranges, its protocol and a port of it, its tags), so the
 * deciding rules vary and a fair share of decisions change; the rest are anywhere in 10/8,
 * 172.16/12 and 192.168/16, most of them decided by the implied rules.
 */
function flowPool(count: number, seed: number, rules: FirewallRule[]): Flow[] {
  const random = prng(seed);
  const ports = [22, 80, 443, 3306, 5432, 6379, 8042, 9050, 53, 123];
  const byte = () => Math.floor(random() * 256);
  const seen = new Set<string>();
  const flows: Flow[] = [];
  while (flows.length < count) {
    let flow: Flow;
    if (random() < RULE_FLOWS) {
      const rule = rules[Math.floor(random() * rules.length)];
      const l4 = rule.match.layer4Configs?.[0];
      const [low, high = low] = (
        l4?.ports?.[0] ?? String(ports[Math.floor(random() * ports.length)])
      )
        .split('-')
        .map(Number);
      flow = {
        direction: rule.direction ?? 'INGRESS',
        srcIp: inRange(rule.match.srcIpRanges?.[0] ?? '10.0.0.0/8', random),
        destIp: inRange(rule.match.destIpRanges?.[0] ?? '192.168.0.0/16', random),
        protocol: (l4?.ipProtocol ?? 'tcp') as TrafficEvent['protocol'],
        destPort: low + Math.floor(random() * (high - low + 1)),
        ...(rule.targetTags
          ? { targetTags: rule.targetTags }
          : random() < 0.3
            ? { targetTags: [`tier-${Math.floor(random() * 4)}`] }
            : {}),
      };
    } else {
      flow = {
        direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
        srcIp:
          random() < 0.85
            ? `10.${byte()}.${byte()}.${byte()}`
            : `172.${16 + Math.floor(random() * 16)}.${byte()}.${byte()}`,
        destIp: `192.168.${byte()}.${byte()}`,
        protocol: random() < 0.85 ? 'tcp' : 'udp',
        destPort: ports[Math.floor(random() * ports.length)],
        ...(random() < 0.3 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
      };
    }
    const key = `${flow.direction} ${flow.srcIp} ${flow.destIp} ${flow.protocol} ${flow.destPort}`;
    if (seen.has(key)) continue;
    seen.add(key);
    flows.push(flow);
  }
  return flows;
}

/** Event times move forward across the whole run, one ms per event. */
let clock = Date.parse('2025-06-01T00:00:00Z');

/**
 * `count` events that go round the flows in turn (so every flow is seen once `count` ≥ the
 * flows, and consecutive events are of different flows), made one at a time as they are
 * published: 2 million events are never held at once.
 */
interface Traffic {
  count: number;
  flows: number;
  at(i: number): TrafficEvent;
}
function trafficOf(flows: Flow[], count: number, tag: string): Traffic {
  const start = clock;
  clock += count;
  return {
    count,
    flows: Math.min(flows.length, count),
    at: (i) => ({
      id: `${tag}-${i}`,
      time: new Date(start + i).toISOString(),
      ...flows[i % flows.length],
      srcPort: 1024 + ((Math.imul(i + 1, 2654435761) >>> 0) % 60000),
    }),
  };
}

/**
 * A service as production runs it: the build output (npm run build, once per run; running the
 * TypeScript through a loader would add its compiler to every figure of memory), with the Node
 * options of its Kubernetes config (the evaluator's heap cap).
 */
function startApp(app: string, env: Record<string, string>, root = ROOT): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROFILE === app ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
      join(root, `dist/apps/${app}/src/main.js`),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        NODE_OPTIONS: deployedNodeOptions(app),
        NODE_ENV: 'development',
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
}

/** NODE_OPTIONS of a service's deploy/k8s/base/<app>/config.env, if it sets any. */
function deployedNodeOptions(app: string): string {
  try {
    return (
      /^NODE_OPTIONS=(.*)$/m.exec(
        readFileSync(join(ROOT, `deploy/k8s/base/${app}/config.env`), 'utf8'),
      )?.[1] ?? ''
    );
  } catch {
    return '';
  }
}

/** CPU seconds of a pid (Linux /proc; user + system), 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Peak and current resident memory (VmHWM, VmRSS) and CPU seconds of a process, from /proc. */
function processStats(child: ChildProcess): { peakMb: number; rssMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return {
    peakMb: kb('VmHWM') / 1024,
    rssMb: kb('VmRSS') / 1024,
    cpuSeconds: cpuOf(child.pid as number),
  };
}

/**
 * CPU seconds the evaluator's Postgres backends (application_name = 'evaluator') used since the
 * first sample. Sampled now and then, so a backend the pool opens later is counted from its
 * start, and one it closes keeps the time last seen.
 */
class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private sampled = false;
  private sampledAt = 0;

  constructor(private readonly pg: Client) {}

  async sample(): Promise<void> {
    const pids: number[] = (
      await this.pg.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'evaluator'`)
    ).rows.map((r) => r.pid);
    for (const pid of pids) {
      const cpu = cpuOf(pid);
      if (!this.first.has(pid)) this.first.set(pid, this.sampled ? 0 : cpu);
      if (cpu > 0) this.last.set(pid, cpu);
    }
    this.sampled = true;
    this.sampledAt = performance.now();
  }

  /** Samples when the last sample is older than a second. */
  async maybeSample(): Promise<void> {
    if (performance.now() - this.sampledAt >= 1000) await this.sample();
  }

  get seconds(): number {
    let total = 0;
    for (const [pid, first] of this.first)
      total += Math.max(0, (this.last.get(pid) ?? first) - first);
    return total;
  }
}

/** Builds `revision` in a temporary worktree sharing node_modules; returns its root. */
function buildBaseline(revision: string): string {
  const root = join(tmpdir(), `rollout-bench-baseline-${revision.replace(/[^\w.-]/g, '_')}`);
  out(`building baseline ${revision} in ${root}…`);
  execSync(
    `git worktree add --force --detach ${JSON.stringify(root)} ${JSON.stringify(revision)}`,
    { cwd: ROOT, stdio: 'ignore' },
  );
  execSync(
    `ln -sfn ${JSON.stringify(join(ROOT, 'node_modules'))} ${JSON.stringify(join(root, 'node_modules'))}`,
  );
  execSync('npm run build', { cwd: root, stdio: 'ignore' });
  return root;
}

async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** traffic.v1: one event per message, published in parallel windows of 2,000. */
async function publishAll(
  nc: NatsConnection,
  subject: string,
  traffic: Traffic,
): Promise<{ first: number; last: number; messages: number }> {
  const js = nc.jetstream();
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  for (let i = 0; i < traffic.count; i += 2000) {
    const window: Promise<{ seq: number }>[] = [];
    for (let j = i; j < Math.min(traffic.count, i + 2000); j++) {
      const event = traffic.at(j);
      window.push(js.publish(subject, JSON.stringify(event), { msgID: event.id }));
    }
    for (const ack of await Promise.all(window)) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last, messages: traffic.count };
}

/** traffic.v2alpha: the same events in batches of `size`, address fields spelled out, 50 batches in parallel. */
async function publishBatches(
  nc: NatsConnection,
  subject: string,
  traffic: Traffic,
  size: number,
): Promise<{ first: number; last: number; messages: number }> {
  const js = nc.jetstream();
  const toV2alpha = ({
    srcIp,
    destIp,
    srcPort,
    destPort,
    ...rest
  }: TrafficEvent): TrafficEventV2alpha => ({
    ...rest,
    sourceIp: srcIp,
    destinationIp: destIp,
    sourcePort: srcPort,
    destinationPort: destPort,
  });
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  let messages = 0;
  for (let i = 0; i < traffic.count; i += size * 50) {
    const window: Promise<{ seq: number }>[] = [];
    for (let j = i; j < Math.min(traffic.count, i + size * 50); j += size) {
      const batch: TrafficEventV2alpha[] = [];
      for (let k = j; k < Math.min(traffic.count, j + size); k++)
        batch.push(toV2alpha(traffic.at(k)));
      window.push(
        js.publish(subject, JSON.stringify({ events: batch }), { msgID: `batch-${batch[0].id}` }),
      );
    }
    messages += window.length;
    for (const ack of await Promise.all(window)) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last, messages };
}

/** The baseline: a durable pull consumer over the same events, each acknowledged, nothing else. */
/**
 * The baseline: a durable pull consumer over the same messages, each acknowledged, nothing else.
 * Also the CPU that consuming alone costs this Node process per message (the NATS client's
 * share of any consumer's work, before it does anything with a message).
 */
async function rawRate(
  nc: NatsConnection,
  stream: string,
  first: number,
  count: number,
): Promise<{ rate: number; cpuPerMessageUs: number }> {
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream, {
    durable_name: 'raw-baseline',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: first,
    max_ack_pending: 20_000,
  });
  const consumer = await nc.jetstream().consumers.get(stream, 'raw-baseline');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const messages = await consumer.consume({ max_messages: 3000 });
  let n = 0;
  for await (const message of messages) {
    message.ack();
    if (++n === count) break;
  }
  await nc.flush();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await jsm.consumers.delete(stream, 'raw-baseline');
  return { rate: count / seconds, cpuPerMessageUs: (cpu.user + cpu.system) / count };
}

/** One line of the final summary: a figure, and its target when it has one. */
interface SummaryLine {
  label: string;
  value: string;
  target?: string;
  met?: boolean;
}

async function main() {
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
    PREVIEW_LOGS_MAX_BYTES: String(1024 ** 3),
  };
  // The provisioning step, before the services (docs/bus-security.md).
  await provisionFromEnv(evaluatorEnv);
  const service = startApp('experiment-service', {
    ...common,
    PORT: String(await freePort()),
    DATABASE_SCHEMA: schemas.experiment,
  });
  let evaluator: ChildProcess | undefined;
  let evaluatorPort = 0;
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

  /** A fresh evaluator process on `schema` (this build's, or another's); resolves when it is ready (performance.now()). */
  const startEvaluator = async (schema: string, root = ROOT) => {
    evaluatorPort = await freePort();
    const child = startApp(
      'evaluator',
      { ...evaluatorEnv, DATABASE_SCHEMA: schema, PORT: String(evaluatorPort) },
      root,
    );
    evaluator = child;
    return eventually(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the evaluator exited (${child.exitCode ?? child.signalCode})`);
        return (await fetch(`http://127.0.0.1:${evaluatorPort}/readyz`).catch(() => undefined))
          ?.status === 200
          ? performance.now()
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 10, what: 'evaluator ready' },
    );
  };
  const running = (): ChildProcess => {
    const child = evaluator;
    if (!child || child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the evaluator exited (${child?.exitCode ?? child?.signalCode})`);
    return child;
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

  try {
    await eventually(
      async () =>
        (await ask(`system.v1.experiment-service.info`, {}).catch(() => undefined))
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 250, what: 'experiment-service up' },
    );

    const random = prng(42);
    const rules = liveRules(random);
    const parent = 'projects/bench/locations/global';
    const policyName = `${parent}/firewallPolicies/edge`;
    const experimentName = (id: string) => `${policyName}/experiments/${id}`;
    await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.createPolicy, {
      parent,
      firewallPolicyId: 'edge',
      firewallPolicy: { rules },
      actor: 'bench',
    } satisfies CreatePolicyRequest);
    // 1: flips the action of every tenth rule; 2: a new rule in front; 3: the no-op (previews deleting the policy).
    const variants: Record<string, FirewallRule[]> = {
      flip: rules.map((r, i) =>
        i % 10 === 0 ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r,
      ),
      lockdown: [
        {
          priority: 1,
          direction: 'INGRESS',
          action: 'deny',
          match: {
            srcIpRanges: ['10.128.0.0/9'],
            layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '3306'] }],
          },
        },
        ...rules.slice(0, 999),
      ],
      noop: [],
    };
    for (const [id, experimentRules] of Object.entries(variants)) {
      await ask<Operation>(EXPERIMENT_SUBJECTS.createExperiment, {
        parent: policyName,
        experimentId: id,
        experiment: { firewallPolicy: { rules: experimentRules } },
        actor: 'bench',
      } satisfies CreateExperimentRequest);
    }
    /** The experiments previewed now, as far as this bench has made them so. */
    const active = new Set<string>();
    const start = async (id: string) => {
      const operation = await ask<Operation<FirewallPolicyExperiment>>(
        EXPERIMENT_SUBJECTS.startPreview,
        { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest,
      );
      active.add(id);
      return operation;
    };
    const stopPreview = async (id: string) => {
      const operation = await ask<Operation<FirewallPolicyExperiment>>(
        EXPERIMENT_SUBJECTS.stopPreview,
        { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest,
      );
      active.delete(id);
      return operation;
    };
    const ensureActive = async (ids: readonly string[]) => {
      for (const id of ids) if (!active.has(id)) await start(id);
    };
    const ALL = ['flip', 'lockdown', 'noop'] as const;

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
      const timeoutMs = Math.max(600_000, events * 2);
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
    /** The reports of `ids`, and whether each one's evaluated events add up to `expected`. */
    const reportsOf = async (ids: readonly string[], expected: (id: string) => number) => {
      const reports = await Promise.all(
        ids.map((id) =>
          ask<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: experimentName(id) }),
        ),
      );
      const totals = reports.map((r) => r.configurations.reduce((sum, c) => sum + c.evaluated, 0));
      const exact = totals.every((total, i) => total === expected(ids[i]));
      const sum = (r: PreviewReport, field: 'changed' | 'flows' | 'changedOutsideFlows') =>
        r.configurations.reduce((s, c) => s + (c[field] ?? 0), 0);
      const hasFlows = (r: PreviewReport) => r.configurations.some((c) => c.flows !== undefined);
      const describe = reports
        .map(
          (r, i) =>
            `${ids[i]}: ${int(totals[i])} evaluated${totals[i] === expected(ids[i]) ? '' : ` (expected ${int(expected(ids[i]))})`}, ${int(sum(r, 'changed'))} changed, flows kept ${hasFlows(r) ? int(sum(r, 'flows')) : 'n/a'}, changed outside flows ${hasFlows(r) ? int(sum(r, 'changedOutsideFlows')) : 'n/a'}`,
        )
        .join('; ');
      return {
        reports,
        exact,
        describe,
        flows: reports.map((r) => (hasFlows(r) ? sum(r, 'flows') : undefined)),
      };
    };
    /**
     * Every changed flow of an experiment through previewFlows (pages of 1,000): how many, and
     * whether their events add up to the report's changed events kept in flows.
     */
    const listFlows = async (id: string, report: PreviewReport): Promise<string> => {
      const inFlows = report.configurations.reduce(
        (sum, c) => sum + c.changed - (c.changedOutsideFlows ?? 0),
        0,
      );
      let flows = 0;
      let events = 0;
      let pageToken: string | undefined;
      try {
        for (let page = 0; page < 10_000; page++) {
          const response = await ask<ListPreviewFlowsResponse>(PREVIEW_SUBJECTS.previewFlows, {
            parent: experimentName(id),
            pageSize: 1000,
            ...(pageToken ? { pageToken } : {}),
          } satisfies ListPreviewFlowsRequest);
          flows += response.previewFlows.length;
          events += response.previewFlows.reduce((sum, f) => sum + f.count, 0);
          pageToken = response.nextPageToken;
          if (!pageToken) break;
        }
        return `${id} ${int(flows)} flows of ${int(events)} changed events (${events === inFlows ? "the report's, exactly" : `NOT the report's ${int(inFlows)}`})`;
      } catch (error) {
        return `${id}: previewFlows failed (${errorText(error)})`;
      }
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
     * Starts a fresh evaluator on `schema` over a backlog already published (up to `last`), and
     * measures it until it has evaluated all of it.
     */
    const drain = async (schema: string, last: number, events: number, root = ROOT) => {
      const readyAt = await startEvaluator(schema, root);
      const cpuAtReady = processStats(running()).cpuSeconds;
      const backends = new BackendCpu(pg);
      await backends.sample();
      const { settledAt, doneAt } = await settle(last, schema, events, backends);
      await backends.sample();
      const stats = processStats(running());
      return {
        evaluated: events / ((doneAt - readyAt) / 1000),
        settledOnly: events / ((settledAt - readyAt) / 1000),
        peakMb: stats.peakMb,
        rssMb: stats.rssMb,
        cpuPerEventUs: ((stats.cpuSeconds - cpuAtReady) * 1e6) / events,
        pgCpuPerEventUs: (backends.seconds * 1e6) / events,
      };
    };
    const cpuText = (r: { cpuPerEventUs: number; pgCpuPerEventUs: number }) =>
      `CPU per event: evaluator ${r.cpuPerEventUs.toFixed(1)} µs, its Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs`;

    // 1. Throughput, into the main preview schema.
    out(
      `throughput: ${int(EVENTS)} events per scenario from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules`,
    );
    const throughputFlows = flowPool(FLOWS, 1, rules);
    const results: {
      experiments: number;
      major: 'v1' | 'v2alpha';
      raw: number;
      rawMessages: number;
      rawCpuUs: number;
      evaluated: number;
      settledOnly: number;
      peakMb: number;
      cpuPerEventUs: number;
      pgCpuPerEventUs: number;
      exact: boolean;
      baseline?: number;
    }[] = [];
    const expected: Record<string, number> = {};
    const scenarios = [
      { experiments: 1, major: 'v1', ids: ['flip'] },
      { experiments: 1, major: 'v2alpha', ids: ['flip'] },
      { experiments: 3, major: 'v1', ids: ALL },
    ] as const;
    for (const [index, { experiments, major, ids }] of scenarios.entries()) {
      await ensureActive(ids);
      for (const id of ids) expected[id] = (expected[id] ?? 0) + EVENTS;
      await purgeTraffic();
      const traffic = trafficOf(throughputFlows, EVENTS, `s${index}`);
      out(
        `  publishing ${int(EVENTS)} events (${experiments} ACTIVE experiment${experiments > 1 ? 's' : ''}, traffic.${major}${major === 'v2alpha' ? ` in batches of ${BATCH}` : ''})…`,
      );
      const { first, last, messages } = await publish(major, traffic);
      const { rate: rawMessages, cpuPerMessageUs: rawCpuUs } = await rawRate(
        nc,
        stream,
        first,
        messages,
      );
      const raw = (rawMessages * EVENTS) / messages;
      const measured = await drain(schemas.preview, last, EVENTS);
      const { exact, describe } = await reportsOf(ids, (id) => expected[id]);
      out(`    ${describe}; ${await metricsLine()}`);
      let baseline: number | undefined;
      if (baselineRoot) {
        // The same backlog again, from its first message, for the other build's evaluator.
        await stop(evaluator);
        await jsm.consumers.delete(stream, 'evaluator');
        const schema = uniqueName('bench_');
        passSchemas.push(schema);
        baseline = (await drain(schema, last, EVENTS, baselineRoot)).evaluated;
        out(
          `    baseline ${BASELINE}: ${int(baseline)} events/s evaluated on the same backlog; this build ${(measured.evaluated / baseline).toFixed(2)} × baseline`,
        );
        await stop(evaluator);
        await dropSchema(schema);
        // The last scenario's evaluator stays up for the freshness rounds: this build's.
        if (index === scenarios.length - 1) await startEvaluator(schemas.preview);
      }
      results.push({
        experiments,
        major,
        raw,
        rawMessages,
        rawCpuUs,
        ...measured,
        exact,
        baseline,
      });
      if (index < scenarios.length - 1) await stop(evaluator);
    }
    out('');
    out(
      `evaluator end to end: ${int(EVENTS)} traffic events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules (2 shared cores; NATS, Postgres and this load generator included)`,
    );
    for (const r of results) {
      if (r.major === 'v2alpha') {
        // No target of its own: the same work per event, fewer messages; compared with v1's raw rate of one event per message.
        const v1 = results.find(
          (v) => v.major === 'v1' && v.experiments === r.experiments,
        ) as (typeof results)[number];
        out(
          `  ${r.experiments} ACTIVE experiment , traffic.v2alpha batches of ${BATCH}: ${int(r.evaluated)} events/s evaluated = ${(r.evaluated / v1.raw).toFixed(2)} × v1 raw (${(r.evaluated / v1.evaluated).toFixed(2)} × v1 evaluated); ` +
            `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same batches: ${int(r.rawMessages)} msgs/s (${int(r.raw)} events/s); ` +
            `${cpuText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}`,
        );
        note({
          label: `throughput, ${r.experiments} ACTIVE, traffic.v2alpha ×${BATCH}`,
          value: `${int(r.evaluated)} events/s = ${(r.evaluated / v1.raw).toFixed(2)} × v1 raw, ${(r.evaluated / v1.evaluated).toFixed(2)} × v1 evaluated`,
        });
        note({
          label: `  CPU per event, peak RSS`,
          value: `evaluator ${r.cpuPerEventUs.toFixed(1)} µs, Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; ${r.peakMb.toFixed(0)} MB`,
        });
        continue;
      }
      const ratio = r.evaluated / r.raw;
      const target = TARGETS.ratio[r.experiments];
      out(
        `  ${r.experiments} ACTIVE experiment${r.experiments > 1 ? 's' : ' '}: ${int(r.evaluated)} events/s evaluated (report durable, PREVIEW_LOGS published) = ${ratio.toFixed(2)} × raw; ` +
          `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same events: ${int(r.raw)} msgs/s (${r.rawCpuUs.toFixed(1)} µs of the consuming process's CPU per message); ` +
          `${cpuText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}; target ≥ ${target} × raw → ${ratio >= target ? 'met' : 'NOT met'}`,
      );
      note({
        label: `throughput, ${r.experiments} ACTIVE, traffic.v1`,
        value: `${int(r.evaluated)} events/s = ${ratio.toFixed(2)} × raw (${int(r.raw)} msgs/s)`,
        target: `≥ ${target} × raw`,
        met: ratio >= target,
      });
      if (r.baseline !== undefined) {
        const share = r.evaluated / r.baseline;
        note({
          label: `  against ${BASELINE}, same backlog`,
          value: `${int(r.evaluated)} vs ${int(r.baseline)} events/s = ${share.toFixed(2)} × baseline`,
          target: '≥ 0.9 × baseline',
          met: share >= 0.9,
        });
      }
      note({
        label: `  CPU per event, peak RSS`,
        value: `evaluator ${r.cpuPerEventUs.toFixed(1)} µs (raw pull+ack alone: ${r.rawCpuUs.toFixed(1)} µs per message), Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; ${r.peakMb.toFixed(0)} MB`,
      });
    }
    note({
      label: 'throughput report totals exact',
      value: results.every((r) => r.exact) ? 'yes' : 'NO',
      target: 'exact',
      met: results.every((r) => r.exact),
    });

    // 2. Freshness: the last throughput evaluator keeps running; flip and lockdown ACTIVE, noop stopped.
    if (ROUNDS > 0) {
      await stopPreview('noop');
      const freshness: Record<string, number[]> = {
        startPreview: [],
        update: [],
        stopPreview: [],
        'live update': [],
        commit: [],
      };
      const logsStream = ns.stream(PREVIEW_LOGS_STREAM);
      const logsPrefix = ns.subject(previewLogSubject('bench', 'global', 'edge', ''));
      const logsLastSeq = async () => (await jsm.streams.info(logsStream)).state.last_seq;
      /** The PREVIEW_LOGS records after stream sequence `after`, by experiment id, read with an ordered consumer up to the stream's last message now. */
      const logsAfter = async (after: number): Promise<Map<string, PreviewLogRecord[]>> => {
        const byExperiment = new Map<string, PreviewLogRecord[]>();
        const until = await logsLastSeq();
        if (until <= after) return byExperiment;
        const consumer = await js.consumers.get(logsStream, {
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: after + 1,
        });
        const messages = await consumer.consume({ max_messages: 1000 });
        const timer = setTimeout(() => messages.stop(), 30_000);
        try {
          for await (const message of messages) {
            if (message.subject.startsWith(logsPrefix)) {
              const id = message.subject.slice(logsPrefix.length);
              byExperiment.set(id, [
                ...(byExperiment.get(id) ?? []),
                ...message.json<PreviewLogBatch>().records,
              ]);
            }
            if (message.seq >= until || message.info.pending === 0) break;
          }
        } finally {
          clearTimeout(timer);
          messages.stop();
        }
        return byExperiment;
      };
      /**
       * The records of the probes once they are all on PREVIEW_LOGS: flip is ACTIVE throughout, so
       * every probe has a flip record once its batch's records were published.
       */
      const probeLogs = async (after: number, sent: { id: string }[], schema: string) => {
        const deadline = performance.now() + 30_000;
        for (;;) {
          const logs = await logsAfter(after);
          const flip = new Set((logs.get('flip') ?? []).map((r) => r.trafficEventId));
          if (
            (sent.every((p) => flip.has(p.id)) && (await outboxesEmpty(schema))) ||
            performance.now() > deadline
          ) {
            if (performance.now() > deadline)
              out(
                `    (not every probe has its flip record on PREVIEW_LOGS after 30 s: ${sent.filter((p) => !flip.has(p.id)).length} of ${sent.length} missing)`,
              );
            return (id: string) => logs.get(id) ?? [];
          }
          await sleep(50);
        }
      };
      /** Publishes probes for a while after `t0`; returns each probe's id and when its publish was acknowledged. */
      const probe = async (t0: number, round: string) => {
        const sent: { id: string; at: number }[] = [];
        for (let i = 0; performance.now() - t0 < PROBE_FOR_MS; i++) {
          const event: TrafficEvent = {
            id: `probe-${round}-${i}`,
            time: new Date().toISOString(),
            direction: 'INGRESS',
            srcIp: '10.200.1.1',
            destIp: '192.168.0.1',
            protocol: 'tcp',
            destPort: 22,
          };
          const ack = await js.publish(subject, JSON.stringify(event), { msgID: event.id });
          sent.push({ id: event.id, at: performance.now() - t0 });
          await sleep(PROBE_EVERY_MS);
          if (i === 0 && ack.seq === 0) throw new Error('probe not stored');
        }
        const lastSeq = (await jsm.streams.info(stream)).state.last_seq;
        await eventually(() => consumerSettled(lastSeq).then((ok) => ok || undefined), {
          timeoutMs: 30_000,
          what: 'probes settled',
        });
        return sent;
      };
      /** The latest probe (ms after t0) still evaluated against the old state; 0 when none was. */
      const staleness = (sent: { id: string; at: number }[], isNew: (id: string) => boolean) =>
        sent.reduce((latest, p) => (isNew(p.id) ? latest : Math.max(latest, p.at)), 0);
      const eventIds = (
        records: PreviewLogRecord[],
        keep: (r: PreviewLogRecord) => boolean = () => true,
      ) => new Set(records.filter(keep).map((r) => r.trafficEventId));
      for (let round = 0; round < ROUNDS; round++) {
        // startPreview: new records for lockdown (stopped first, outside the measure).
        await stopPreview('lockdown');
        await sleep(50);
        let after = await logsLastSeq();
        const started = await start('lockdown');
        let t0 = performance.now();
        let sent = await probe(t0, `${round}-start`);
        let logs = await probeLogs(after, sent, schemas.preview);
        let ids = eventIds(logs('lockdown'), (r) => r.experimentEtag === started.response?.etag);
        freshness.startPreview.push(staleness(sent, (id) => ids.has(id)));

        // An update of an ACTIVE experiment suspends it (AIP-236): its records stop.
        after = await logsLastSeq();
        await ask<Operation>(EXPERIMENT_SUBJECTS.updateExperiment, {
          experiment: { name: experimentName('lockdown'), annotations: { round: String(round) } },
          actor: 'bench',
        } satisfies UpdateExperimentRequest);
        active.delete('lockdown');
        t0 = performance.now();
        sent = await probe(t0, `${round}-update`);
        logs = await probeLogs(after, sent, schemas.preview);
        ids = eventIds(logs('lockdown'));
        freshness.update.push(staleness(sent, (id) => !ids.has(id)));

        await start('lockdown');
        await sleep(50);
        after = await logsLastSeq();
        await stopPreview('lockdown');
        t0 = performance.now();
        sent = await probe(t0, `${round}-stop`);
        logs = await probeLogs(after, sent, schemas.preview);
        ids = eventIds(logs('lockdown'));
        freshness.stopPreview.push(staleness(sent, (id) => !ids.has(id)));

        // A live policy update: flip's records carry the new live etag.
        after = await logsLastSeq();
        const updated = await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.updatePolicy, {
          firewallPolicy: { name: policyName, description: `round ${round}` },
          updateMask: 'description',
          actor: 'bench',
        } satisfies UpdatePolicyRequest);
        t0 = performance.now();
        let liveEtag = updated.etag;
        sent = await probe(t0, `${round}-live`);
        logs = await probeLogs(after, sent, schemas.preview);
        ids = eventIds(logs('flip'), (r) => r.livePolicyEtag === liveEtag);
        freshness['live update'].push(staleness(sent, (id) => ids.has(id)));

        // A commit: a fresh experiment (the live rules with one change) becomes the live policy.
        const candidate = `commit-${round}`;
        const created = await ask<Operation<FirewallPolicyExperiment>>(
          EXPERIMENT_SUBJECTS.createExperiment,
          {
            parent: policyName,
            experimentId: candidate,
            experiment: {
              firewallPolicy: {
                rules: rules.map((r, i) =>
                  i === round ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r,
                ),
              },
            },
            actor: 'bench',
          } satisfies CreateExperimentRequest,
        );
        after = await logsLastSeq();
        const committed = await ask<Operation<FirewallPolicy>>(EXPERIMENT_SUBJECTS.commit, {
          name: experimentName(candidate),
          etag: created.response?.etag,
          actor: 'bench',
        } satisfies CommitRequest);
        t0 = performance.now();
        liveEtag = committed.response?.etag as string;
        sent = await probe(t0, `${round}-commit`);
        logs = await probeLogs(after, sent, schemas.preview);
        ids = eventIds(logs('flip'), (r) => r.livePolicyEtag === liveEtag);
        freshness.commit.push(staleness(sent, (id) => ids.has(id)));
      }
      const all: number[] = [];
      out(
        `  state-change freshness (${ROUNDS} rounds each; latest probe still evaluated against the old state, ms after the command returned, read from PREVIEW_LOGS; probes every ~${PROBE_EVERY_MS} ms):`,
      );
      for (const [command, values] of Object.entries(freshness)) {
        const sorted = [...values].sort((a, b) => a - b);
        all.push(...values);
        out(
          `    ${command.padEnd(13)} p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms`,
        );
      }
      const p99 = percentile(
        all.sort((a, b) => a - b),
        99,
      );
      out(
        `    all commands  p99 ${p99.toFixed(0)} ms → target ≤ ${TARGETS.freshnessP99Ms} ms ${p99 <= TARGETS.freshnessP99Ms ? 'met' : 'NOT met'}`,
      );
      note({
        label: 'state-change freshness, all commands',
        value: `p99 ${p99.toFixed(0)} ms (${ROUNDS} rounds)`,
        target: `≤ ${TARGETS.freshnessP99Ms} ms`,
        met: p99 <= TARGETS.freshnessP99Ms,
      });
    }
    const throughputStats = processStats(running());
    out(
      `  evaluator peak RSS over the last throughput scenario${ROUNDS > 0 ? ' and the freshness rounds' : ''}: ${throughputStats.peakMb.toFixed(0)} MB`,
    );
    await stop(evaluator);

    // 3. Storage: 3 ACTIVE experiments, rounds of the same flows, each pass into an empty schema.
    if (!SKIP_STORAGE) {
      await ensureActive(ALL);
      for (const flowCount of STORAGE_FLOWS) {
        const schema = uniqueName('bench_');
        passSchemas.push(schema);
        await purgeTraffic();
        const flows = flowPool(flowCount, 1000 + flowCount, rules);
        out('');
        out(
          `storage: 3 ACTIVE experiments, ${STORAGE_ROUNDS} rounds of ${int(STORAGE_EVENTS)} events from ${int(flowCount)} distinct flows, into an empty preview schema (VACUUMed after every round; sizes are the sum of pg_total_relation_size over its tables)`,
        );
        const readyAt = await startEvaluator(schema);
        const cpuAtReady = processStats(running()).cpuSeconds;
        const backends = new BackendCpu(pg);
        await backends.sample();
        await vacuum(schema);
        const baseline = await sizeOf(schema);
        out(`  empty (migrated): ${mb(baseline.bytes)}; rows ${JSON.stringify(baseline.rows)}`);
        const added: number[] = [];
        let previous = baseline.bytes;
        let seen = 0;
        let reports: PreviewReport[] = [];
        let keptAfterRound1 = '';
        for (let round = 1; round <= STORAGE_ROUNDS; round++) {
          const traffic = trafficOf(flows, STORAGE_EVENTS, `st${flowCount}-${round}`);
          seen = Math.min(flowCount, seen + STORAGE_EVENTS);
          const { last } = await publishAll(nc, subject, traffic);
          await settle(last, schema, STORAGE_EVENTS, backends);
          await vacuum(schema);
          const size = await sizeOf(schema);
          added.push(size.bytes - previous);
          previous = size.bytes;
          const report = await reportsOf(ALL, () => round * STORAGE_EVENTS);
          reports = report.reports;
          if (round === 1)
            keptAfterRound1 = ALL.map(
              (id, i) =>
                `${id} ${report.flows[i] === undefined ? 'n/a' : int(report.flows[i] as number)}`,
            ).join(', ');
          out(
            `  round ${round}: ${int(round * STORAGE_EVENTS)} events, ${int(seen)} distinct flows seen: schema ${mb(size.bytes)}, +${mb(added[round - 1])} this round = ${(((added[round - 1] / STORAGE_EVENTS) * 1e6) / MB).toFixed(2)} MB per million events (${((((size.bytes - baseline.bytes) / (round * STORAGE_EVENTS)) * 1e6) / MB).toFixed(2)} MB per million since empty)`,
          );
          out(
            `    rows: ${Object.entries(size.rows)
              .map(([table, n]) => `${table} ${int(n)}`)
              .join(', ')}`,
          );
          out(`    ${report.describe}`);
        }
        await backends.sample();
        const stats = processStats(running());
        const events = STORAGE_ROUNDS * STORAGE_EVENTS;
        const cpu = {
          cpuPerEventUs: ((stats.cpuSeconds - cpuAtReady) * 1e6) / events,
          pgCpuPerEventUs: (backends.seconds * 1e6) / events,
        };
        if (reports.length)
          out(
            `  previewFlows: ${(await Promise.all(ALL.map((id, i) => listFlows(id, reports[i])))).join('; ')}`,
          );
        out(
          `  ${cpuText(cpu)} (over ${((performance.now() - readyAt) / 1000).toFixed(0)} s, publishing included); evaluator peak RSS ${stats.peakMb.toFixed(0)} MB`,
        );
        if (added.length > 0) {
          const firstPerMillion = (added[0] / STORAGE_EVENTS) * 1e6;
          // The target's measure: what the whole pass added, per million of its events.
          const passPerMillion =
            (added.reduce((a, b) => a + b, 0) / (added.length * STORAGE_EVENTS)) * 1e6;
          const later = added.slice(1);
          // Flat is judged on the rounds that follow a round by which every flow had been seen.
          const judged = later.filter((_, i) => (i + 1) * STORAGE_EVENTS >= flowCount);
          const flatLimit = Math.max(TARGETS.flatFloorMb * MB, TARGETS.flatShare * added[0]);
          const flat = judged.every((bytes) => bytes <= flatLimit);
          const growth = later
            .map((bytes) => `${bytes >= 0 ? '+' : ''}${(bytes / MB).toFixed(2)}`)
            .join(', ');
          const verdict =
            judged.length === 0
              ? `not judged: ${later.length ? 'no later round follows one by which every flow was seen' : 'one round only'}`
              : `each ≤ ${(flatLimit / MB).toFixed(2)} MB → ${flat ? 'yes' : 'NO'}`;
          out(
            `  → ${(passPerMillion / MB).toFixed(2)} MB per million events over ${int(added.length * STORAGE_EVENTS)} events at ${int(flowCount)} distinct flows (round 1 alone: ${(firstPerMillion / MB).toFixed(2)} MB per million; changed flows kept: ${keptAfterRound1}); later rounds: ${growth || 'none'} MB (flat: ${verdict})`,
          );
          const atTarget = flowCount === TARGETS.storageAtFlows;
          note({
            label: `storage, ${int(flowCount)} flows, per million events`,
            value: `${(passPerMillion / MB).toFixed(2)} MB per million over ${int(added.length * STORAGE_EVENTS)} events (round 1 alone +${mb(added[0])} for ${int(STORAGE_EVENTS)} events${STORAGE_EVENTS < flowCount ? `, only ${int(STORAGE_EVENTS)} distinct flows seen` : ''}; changed flows kept: ${keptAfterRound1})`,
            ...(atTarget
              ? {
                  target: `< ${TARGETS.storageMbPerMillion} MB per million`,
                  met: passPerMillion / MB < TARGETS.storageMbPerMillion,
                }
              : {}),
          });
          note({
            label: `storage, ${int(flowCount)} flows, later rounds`,
            value: later.length
              ? `${growth} MB per round of ${int(STORAGE_EVENTS)} (max ${(((Math.max(...later) / STORAGE_EVENTS) * 1e6) / MB).toFixed(2)} MB per million)`
              : 'only one round',
            ...(judged.length
              ? {
                  target: `flat (each ≤ ${(flatLimit / MB).toFixed(2)} MB once every flow was seen)`,
                  met: flat,
                }
              : {}),
          });
          note({
            label: `  CPU per event, peak RSS`,
            value: `evaluator ${cpu.cpuPerEventUs.toFixed(1)} µs, Postgres backends ${cpu.pgCpuPerEventUs.toFixed(1)} µs; ${stats.peakMb.toFixed(0)} MB`,
          });
        }
        await stop(evaluator);
        await dropSchema(schema);
      }
    }

    // 4. Memory: a fresh evaluator over a backlog of MEMORY_EVENTS, per major.
    if (!SKIP_MEMORY) {
      await ensureActive(ALL);
      const flows = flowPool(MEMORY_FLOWS, 3, rules);
      for (const major of ['v1', 'v2alpha'] as const) {
        const schema = uniqueName('bench_');
        passSchemas.push(schema);
        await purgeTraffic();
        const traffic = trafficOf(flows, MEMORY_EVENTS, `m${major}`);
        out('');
        const publishedAt = performance.now();
        out(
          `memory: publishing ${int(MEMORY_EVENTS)} events from ${int(traffic.flows)} distinct flows, 3 ACTIVE experiments, traffic.${major}${major === 'v2alpha' ? ` in batches of ${BATCH}` : ''}…`,
        );
        const { last } = await publish(major, traffic);
        out(
          `  published in ${((performance.now() - publishedAt) / 1000).toFixed(0)} s; a fresh evaluator on an empty schema evaluates them…`,
        );
        const measured = await drain(schema, last, MEMORY_EVENTS);
        const { exact, describe } = await reportsOf(ALL, () => MEMORY_EVENTS);
        const met = measured.peakMb < TARGETS.rssMb;
        out(`  ${describe}`);
        out(
          `  ${int(measured.evaluated)} events/s evaluated; ${cpuText(measured)}; evaluator peak RSS (VmHWM) ${measured.peakMb.toFixed(0)} MB, RSS at the end ${measured.rssMb.toFixed(0)} MB → target < ${TARGETS.rssMb} MB ${met ? 'met' : 'NOT met'}; totals exact: ${exact ? 'yes' : 'NO'}`,
        );
        note({
          label: `memory, ${int(MEMORY_EVENTS)} events, 3 ACTIVE, ${int(traffic.flows)} flows, traffic.${major}${major === 'v2alpha' ? ` ×${BATCH}` : ''}`,
          value: `peak RSS ${measured.peakMb.toFixed(0)} MB`,
          target: `< ${TARGETS.rssMb} MB`,
          met,
        });
        note({
          label: `  CPU per event, rate, totals`,
          value: `evaluator ${measured.cpuPerEventUs.toFixed(1)} µs, Postgres backends ${measured.pgCpuPerEventUs.toFixed(1)} µs; ${int(measured.evaluated)} events/s; totals exact ${exact ? 'yes' : 'NO'}`,
        });
        await stop(evaluator);
        await dropSchema(schema);
      }
    }
  } finally {
    if (summary.length > 0) {
      const width = Math.max(...summary.map((l) => l.label.length));
      out('');
      out('SUMMARY (evaluator.bench.ts)');
      for (const line of summary) {
        out(
          `  ${line.label.padEnd(width)}  ${line.value}${line.target ? ` | target ${line.target}: ${line.met ? 'met' : 'NOT met'}` : ''}`,
        );
      }
      const missed = summary.filter((l) => l.target && !l.met).length;
      out(
        `  ${summary.filter((l) => l.target).length - missed} of ${summary.filter((l) => l.target).length} targets met${SKIP_MEMORY ? '; memory scenario skipped (BENCH_SKIP_MEMORY=1)' : ''}${SKIP_STORAGE ? '; storage scenario skipped (BENCH_SKIP_STORAGE=1)' : ''}`,
      );
    }
    await stop(evaluator);
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
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
