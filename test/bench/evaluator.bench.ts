/**
 * The evaluator end to end, with one live policy of 1,000 rules and traffic drawn from a pool of
 * distinct flows (direction, source and destination address, protocol and destination port fixed
 * per flow; the source port and the event id vary per event, ids unique). The experiment-service
 * and the evaluator run as their own processes from the build output (built first), the
 * evaluator with the Node options of its Kubernetes config; every measure of the evaluator is
 * taken on a fresh process (its peak RSS, VmHWM, is that scenario's).
 *
 * 1. Throughput: BENCH_EVENTS events (200,000) from BENCH_FLOWS distinct flows (100,000), by the
 *    number K of ACTIVE experiments on the one policy: traffic.v1 with K = 1, 3 and 10, and
 *    traffic.v2alpha batches of 100 events (the next major, beside traffic.v1 on the same stream
 *    and consumer) with K = 1 and 10. K = 1 is `flip` (every tenth rule's action flipped); K = 3
 *    adds `lockdown` (a new deny rule in front) and `noop` (no rules: previews deleting the
 *    policy); K = 10 adds seven experiments that each flip another tenth of the rules' actions,
 *    so all ten disagree with each other and with the live policy (they are deleted after the
 *    K = 10 scenarios: a policy holds at most ten experiments, and the freshness rounds create
 *    one). For each: the events/s the evaluator evaluates with its report durable and every
 *    preview log on PREVIEW_LOGS, next to the raw JetStream pull-consume-and-ack rate of the same
 *    messages measured in the same run, just before; the evaluator's CPU per event and its
 *    Postgres backends'; the bytes PREVIEW_LOGS grew by per event (its `state.bytes` over the
 *    scenario, the stream purged first); and cost(K)/cost(1) of the CPU per event, per major.
 *    Targets: ≥ 0.8 × raw with K = 1, ≥ 0.7 × with 3, ≥ 0.5 × with 10 (traffic.v1); evaluator
 *    CPU ≤ 10 µs per event with K = 1 and ≤ 20 µs with 10 (traffic.v2alpha); CPU per event with
 *    K = 10 ≤ 1.5 × that with K = 1; Postgres CPU ≤ 5 µs per event with K = 3 (traffic.v1).
 *    BENCH_SKIP_V1_K10=1 and BENCH_SKIP_V2ALPHA_K10=1 skip the K = 10 scenarios.
 *    Every evaluator the bench starts runs with PREVIEW_LOGS_PER_EXPERIMENT=false (only the
 *    per-policy log, one record per event, on an evaluator that has it; an older one ignores
 *    the variable); BENCH_PREVIEW_LOGS_PER_EXPERIMENT=true measures the deprecated
 *    per-experiment records as well.
 * 1b. More than one core: a backlog of BENCH_EVENTS traffic.v1 events with K = 3, drained by one
 *    evaluator process and then by two sharing the durable consumer (each time a fresh preview
 *    schema and the durable recreated, as BENCH_BASELINE does): events/s of both, the scaling
 *    ratio, and whether the totals are exact. BENCH_SKIP_SCALING=1 skips it.
 * 2. State-change freshness: after startPreview, an experiment update, stopPreview, a live policy
 *    update or a commit returns, how late traffic can still be evaluated against the old state
 *    (probe events published every few ms, their records read back from PREVIEW_LOGS, the
 *    complete per-event log, in either of its shapes; p50/p99/max), on a fresh evaluator with
 *    flip and lockdown ACTIVE. Target: p99 ≤ 200 ms.
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
 * BENCH_PROFILE=evaluator runs every evaluator with --cpu-prof (profiles in /tmp/prof, one per
 * process, named after its scenario) and prints, for each, the share of its sampled CPU time
 * (idle excluded) in garbage collection (self time of "(garbage collector)") and in socket
 * writes (self time of functions named like writev, writeBuffer or _writeGeneric).
 *
 *   npm run bench -- test/bench/evaluator.bench.ts
 *   (BENCH_EVENTS, BENCH_FLOWS, BENCH_FRESHNESS_ROUNDS, BENCH_STORAGE_EVENTS, BENCH_STORAGE_ROUNDS,
 *    BENCH_STORAGE_FLOWS=1000,100000, BENCH_MEMORY_EVENTS, BENCH_MEMORY_FLOWS, BENCH_RULE_FLOWS, BENCH_SKIP_MEMORY=1,
 *    BENCH_SKIP_STORAGE=1, BENCH_SKIP_V1_K10=1, BENCH_SKIP_V2ALPHA_K10=1, BENCH_SKIP_SCALING=1,
 *    BENCH_PREVIEW_LOGS_PER_EXPERIMENT, BENCH_BASELINE, BENCH_LOG_LEVEL, BENCH_PROFILE=evaluator,
 *    TEST_NATS_URL, TEST_POSTGRES_URL)
 */
import {
  CommitRequest,
  CreateExperimentRequest,
  CreatePolicyRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  Operation,
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
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
import { LoggedVerdict, VerdictsByExperiment } from './preview-log-reader';
import { profileClockUs, profileShares } from './support';

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
const SKIP_V1_K10 = process.env.BENCH_SKIP_V1_K10 === '1';
const SKIP_V2ALPHA_K10 = process.env.BENCH_SKIP_V2ALPHA_K10 === '1';
const SKIP_SCALING = process.env.BENCH_SKIP_SCALING === '1';
/** The evaluator's PREVIEW_LOGS_PER_EXPERIMENT: false, only the per-policy log (see the header). */
const PER_EXPERIMENT_LOGS = process.env.BENCH_PREVIEW_LOGS_PER_EXPERIMENT === 'true';
const PROFILING = process.env.BENCH_PROFILE === 'evaluator';
/** A git revision whose evaluator runs every throughput scenario again, on the same backlog, for a same-run comparison. */
const BASELINE = process.env.BENCH_BASELINE;
/** Events per traffic.v2alpha message. */
const BATCH = 100;
const TARGETS = {
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
const PROFILE_DIR = '/tmp/prof';
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
function startApp(
  app: string,
  env: Record<string, string>,
  root = ROOT,
  profileName?: string,
): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROFILE === app
        ? [
            '--cpu-prof',
            `--cpu-prof-dir=${PROFILE_DIR}`,
            ...(profileName ? [`--cpu-prof-name=${profileName}`] : []),
          ]
        : []),
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
  const startEvaluator = async (schema: string, label?: string, root = ROOT) => {
    const port = await freePort();
    evaluatorsStarted++;
    // Named, so that it is found again; only a labelled one is reported (not the first, which declares the streams).
    const profile = PROFILING
      ? `evaluator-${namespace}-${evaluatorsStarted}-${label ?? 'streams'}.cpuprofile`
      : undefined;
    const child = startApp(
      'evaluator',
      { ...evaluatorEnv, DATABASE_SCHEMA: schema, PORT: String(port) },
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
    for (const { label, profile, readyAtUs } of stopping) {
      if (!profile || !label) continue;
      const path = join(PROFILE_DIR, profile);
      try {
        const { sampledMs, whole, shares } = profileShares(
          path,
          { gc: /^\(garbage collector\)$/, writes: /writev|writeBuffer|_writeGeneric/ },
          { fromUs: readyAtUs, toUs: stoppedAtUs },
        );
        const value = `garbage collection ${(shares.gc * 100).toFixed(1)}%, socket writes ${(shares.writes * 100).toFixed(1)}% of ${(sampledMs / 1000).toFixed(1)} s sampled (idle excluded; ${whole ? 'the whole process' : 'from ready to stop'})`;
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
    /** The live rules with the action flipped of every rule whose index is `tenth` modulo 10. */
    const flipTenth = (tenth: number) =>
      rules.map((r, i) =>
        i % 10 === tenth
          ? { ...r, action: r.action === 'allow' ? ('deny' as const) : ('allow' as const) }
          : r,
      );
    const createExperiment = (id: string, experimentRules: FirewallRule[]) =>
      ask<Operation>(EXPERIMENT_SUBJECTS.createExperiment, {
        parent: policyName,
        experimentId: id,
        experiment: { firewallPolicy: { rules: experimentRules } },
        actor: 'bench',
      } satisfies CreateExperimentRequest);
    // 1: flips the action of every tenth rule; 2: a new rule in front; 3: the no-op (previews deleting the policy).
    const variants: Record<string, FirewallRule[]> = {
      flip: flipTenth(0),
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
    for (const [id, experimentRules] of Object.entries(variants))
      await createExperiment(id, experimentRules);
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
    /**
     * With ALL, the ten experiments of the K = 10 scenarios: the seven more each flip another
     * tenth of the rules' actions. They exist only for those scenarios (a policy holds at most
     * ten experiments, and each freshness round creates one to commit).
     */
    const TENTHS = [1, 2, 3, 4, 5, 6, 7].map((tenth) => `tenth-${tenth}`);
    const TEN = [...ALL, ...TENTHS];
    let tenthsExist = false;
    const createTenths = async () => {
      if (tenthsExist) return;
      for (const [i, id] of TENTHS.entries()) await createExperiment(id, flipTenth(i + 1));
      tenthsExist = true;
    };
    const deleteTenths = async () => {
      if (!tenthsExist) return;
      for (const id of TENTHS) {
        if (active.has(id)) await stopPreview(id);
        await ask<Operation>(EXPERIMENT_SUBJECTS.deleteExperiment, {
          name: experimentName(id),
          actor: 'bench',
        } satisfies DeleteRequest);
      }
      tenthsExist = false;
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
    /** The reports of `ids`, and whether each one's evaluated events add up to `expected`. */
    const reportsOf = async (ids: readonly string[], expected: (id: string) => number) => {
      // One at a time: ten reports at once can wait for the evaluator's pool longer than its 2 s connection timeout.
      const reports: PreviewReport[] = [];
      let slowestMs = 0;
      for (const id of ids) {
        const askedAt = performance.now();
        reports.push(
          await ask<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: experimentName(id) }),
        );
        slowestMs = Math.max(slowestMs, performance.now() - askedAt);
      }
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
        .join('; ')
        .concat(`; slowest report read ${slowestMs.toFixed(0)} ms`);
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
      }: { root?: string; processes?: number; label?: string } = {},
    ) => {
      const ready = await Promise.all(
        Array.from({ length: processes }, (_, i) =>
          startEvaluator(
            schema,
            label && processes > 1 ? `${label}-${i + 1}of${processes}` : label,
            root,
          ),
        ),
      );
      const readyAt = Math.min(...ready);
      const backends = new BackendCpu(pg);
      await backends.sample();
      const { settledAt, doneAt } = await settle(last, schema, events, backends);
      await backends.sample();
      running();
      const cpuSeconds = evaluators.reduce(
        (sum, { child, cpuAtReady }) => sum + processStats(child).cpuSeconds - cpuAtReady,
        0,
      );
      const stats = evaluators.map(({ child }) => processStats(child));
      return {
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
    const cpuText = (r: { cpuPerEventUs: number; pgCpuPerEventUs: number }) =>
      `CPU per event: evaluator ${r.cpuPerEventUs.toFixed(1)} µs, its Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs`;

    // 1. Throughput, into the main preview schema, by ACTIVE experiments.
    out(
      `throughput: ${int(EVENTS)} events per scenario from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules`,
    );
    const throughputFlows = flowPool(FLOWS, 1, rules);
    type Major = 'v1' | 'v2alpha';
    const results: {
      experiments: number;
      major: Major;
      raw: number;
      rawMessages: number;
      rawCpuUs: number;
      evaluated: number;
      settledOnly: number;
      peakMb: number;
      cpuPerEventUs: number;
      pgCpuPerEventUs: number;
      /** PREVIEW_LOGS `state.bytes` added over the scenario, per event. */
      logBytesPerEvent: number;
      logMessages: number;
      /** The stream's limits discarded some of the scenario's logs: the bytes are a floor. */
      logsDiscarded: boolean;
      exact: boolean;
      baseline?: number;
    }[] = [];
    const expected: Record<string, number> = {};
    const scenarios: { experiments: number; major: Major; ids: readonly string[] }[] = [
      { experiments: 1, major: 'v1', ids: ['flip'] },
      { experiments: 1, major: 'v2alpha', ids: ['flip'] },
      { experiments: 3, major: 'v1', ids: ALL },
      ...(SKIP_V1_K10 ? [] : [{ experiments: 10, major: 'v1' as const, ids: TEN }]),
      ...(SKIP_V2ALPHA_K10 ? [] : [{ experiments: 10, major: 'v2alpha' as const, ids: TEN }]),
    ];
    const logsStream = ns.stream(PREVIEW_LOGS_STREAM);
    for (const { experiments, major, ids } of scenarios) {
      if (experiments === 10) await createTenths();
      await ensureActive(ids);
      for (const id of ids) expected[id] = (expected[id] ?? 0) + EVENTS;
      await purgeTraffic();
      await jsm.streams.purge(logsStream);
      const logsBefore = (await jsm.streams.info(logsStream)).state;
      const label = `${major}-k${experiments}`;
      const traffic = trafficOf(throughputFlows, EVENTS, label);
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
      const measured = await drain(schemas.preview, last, EVENTS, { label });
      const logsAfter = (await jsm.streams.info(logsStream)).state;
      const logs = {
        logBytesPerEvent: (logsAfter.bytes - logsBefore.bytes) / EVENTS,
        logMessages: logsAfter.messages - logsBefore.messages,
        logsDiscarded: logsAfter.first_seq > logsBefore.last_seq + 1,
      };
      const { exact, describe } = await reportsOf(ids, (id) => expected[id]);
      out(`    ${describe}; ${await metricsLine()}`);
      await stopEvaluators();
      let baseline: number | undefined;
      if (baselineRoot) {
        // The same backlog again, from its first message, for the other build's evaluator.
        await jsm.consumers.delete(stream, 'evaluator');
        const schema = uniqueName('bench_');
        passSchemas.push(schema);
        baseline = (
          await drain(schema, last, EVENTS, { root: baselineRoot, label: `baseline-${label}` })
        ).evaluated;
        out(
          `    baseline ${BASELINE}: ${int(baseline)} events/s evaluated on the same backlog; this build ${(measured.evaluated / baseline).toFixed(2)} × baseline`,
        );
        await stopEvaluators();
        await dropSchema(schema);
      }
      results.push({
        experiments,
        major,
        raw,
        rawMessages,
        rawCpuUs,
        ...measured,
        ...logs,
        exact,
        baseline,
      });
    }
    await deleteTenths();
    out('');
    out(
      `evaluator end to end: ${int(EVENTS)} traffic events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules (2 shared cores; NATS, Postgres and this load generator included)`,
    );
    const logsText = (r: (typeof results)[number]) =>
      `PREVIEW_LOGS ${int(r.logBytesPerEvent)} bytes per event (${int(r.logMessages)} messages${r.logsDiscarded ? '; the stream discarded some: a floor' : ''})`;
    for (const r of results) {
      const k = `${r.experiments} ACTIVE experiment${r.experiments > 1 ? 's' : ''}`;
      const logsNote: SummaryLine = {
        label: `  PREVIEW_LOGS per event`,
        value: `${int(r.logBytesPerEvent)} bytes (${int(r.logMessages)} messages for ${int(EVENTS)} events)${r.logsDiscarded ? ', a floor: the stream discarded some' : ''}`,
      };
      if (r.major === 'v2alpha') {
        // The same work per event, fewer messages; compared with v1's raw rate of one event per message.
        const v1 = results.find((v) => v.major === 'v1' && v.experiments === r.experiments);
        const againstV1 = v1
          ? ` = ${(r.evaluated / v1.raw).toFixed(2)} × v1 raw (${(r.evaluated / v1.evaluated).toFixed(2)} × v1 evaluated)`
          : '';
        const target = TARGETS.v2alphaCpuUs[r.experiments];
        const cpuMet = target === undefined || r.cpuPerEventUs <= target;
        out(
          `  ${k}, traffic.v2alpha batches of ${BATCH}: ${int(r.evaluated)} events/s evaluated${againstV1}; ` +
            `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same batches: ${int(r.rawMessages)} msgs/s (${int(r.raw)} events/s); ` +
            `${cpuText(r)}${target === undefined ? '' : ` (evaluator target ≤ ${target} µs → ${cpuMet ? 'met' : 'NOT met'})`}; ${logsText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}`,
        );
        note({
          label: `throughput, ${r.experiments} ACTIVE, traffic.v2alpha ×${BATCH}`,
          value: `${int(r.evaluated)} events/s${againstV1}; raw ${int(r.raw)} events/s`,
        });
        note({
          label: `  evaluator CPU per event`,
          value: `${r.cpuPerEventUs.toFixed(1)} µs (Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs); peak RSS ${r.peakMb.toFixed(0)} MB`,
          ...(target === undefined ? {} : { target: `≤ ${target} µs`, met: cpuMet }),
        });
      } else {
        const ratio = r.evaluated / r.raw;
        const target = TARGETS.ratio[r.experiments];
        out(
          `  ${k}, traffic.v1: ${int(r.evaluated)} events/s evaluated (report durable, PREVIEW_LOGS published) = ${ratio.toFixed(2)} × raw; ` +
            `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same events: ${int(r.raw)} msgs/s (${r.rawCpuUs.toFixed(1)} µs of the consuming process's CPU per message); ` +
            `${cpuText(r)}; ${logsText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}; target ≥ ${target} × raw → ${ratio >= target ? 'met' : 'NOT met'}`,
        );
        note({
          label: `throughput, ${r.experiments} ACTIVE, traffic.v1`,
          value: `${int(r.evaluated)} events/s = ${ratio.toFixed(2)} × raw (${int(r.raw)} msgs/s)`,
          target: `≥ ${target} × raw`,
          met: ratio >= target,
        });
        note({
          label: `  CPU per event, peak RSS`,
          value: `evaluator ${r.cpuPerEventUs.toFixed(1)} µs (raw pull+ack alone: ${r.rawCpuUs.toFixed(1)} µs per message), Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; ${r.peakMb.toFixed(0)} MB`,
        });
        if (r.experiments === 3)
          note({
            label: `  Postgres backends' CPU per event`,
            value: `${r.pgCpuPerEventUs.toFixed(1)} µs`,
            target: `≤ ${TARGETS.pgCpuUsAt3} µs`,
            met: r.pgCpuPerEventUs <= TARGETS.pgCpuUsAt3,
          });
      }
      note(logsNote);
      if (r.baseline !== undefined) {
        const share = r.evaluated / r.baseline;
        note({
          label: `  against ${BASELINE}, same backlog`,
          value: `${int(r.evaluated)} vs ${int(r.baseline)} events/s = ${share.toFixed(2)} × baseline`,
          target: '≥ 0.9 × baseline',
          met: share >= 0.9,
        });
      }
    }
    // cost(K)/cost(1): the CPU per event by ACTIVE experiments, per major.
    for (const major of ['v1', 'v2alpha'] as const) {
      const byK = results.filter((r) => r.major === major);
      const one = byK.find((r) => r.experiments === 1);
      if (!one || byK.length < 2) continue;
      const growth = (r: (typeof results)[number]) => ({
        evaluator: r.cpuPerEventUs / one.cpuPerEventUs,
        postgres: r.pgCpuPerEventUs / one.pgCpuPerEventUs,
        both: (r.cpuPerEventUs + r.pgCpuPerEventUs) / (one.cpuPerEventUs + one.pgCpuPerEventUs),
      });
      out(
        `  CPU per event by ACTIVE experiments, traffic.${major}${major === 'v2alpha' ? ` ×${BATCH}` : ''}, cost(K)/cost(1): ` +
          byK
            .filter((r) => r !== one)
            .map((r) => {
              const g = growth(r);
              return `K=${r.experiments}: evaluator ${r.cpuPerEventUs.toFixed(1)} / ${one.cpuPerEventUs.toFixed(1)} µs = ${g.evaluator.toFixed(2)} ×, Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} / ${one.pgCpuPerEventUs.toFixed(1)} µs = ${g.postgres.toFixed(2)} ×, both ${g.both.toFixed(2)} ×`;
            })
            .join('; ') +
          ` (target at K=10: evaluator ≤ ${TARGETS.cpuGrowthAt10} ×)`,
      );
      for (const r of byK.filter((k) => k !== one)) {
        const g = growth(r);
        note({
          label: `CPU per event, ${r.experiments} / 1 ACTIVE, traffic.${major}`,
          value: `evaluator ${g.evaluator.toFixed(2)} × (${r.cpuPerEventUs.toFixed(1)} / ${one.cpuPerEventUs.toFixed(1)} µs); Postgres backends ${g.postgres.toFixed(2)} ×; both ${g.both.toFixed(2)} ×`,
          ...(r.experiments === 10
            ? { target: `≤ ${TARGETS.cpuGrowthAt10} ×`, met: g.evaluator <= TARGETS.cpuGrowthAt10 }
            : {}),
        });
      }
    }
    note({
      label: 'throughput report totals exact',
      value: results.every((r) => r.exact) ? 'yes' : 'NO',
      target: 'exact',
      met: results.every((r) => r.exact),
    });

    // 1b. More than one core: the same backlog drained by 1 and then 2 evaluator processes.
    if (!SKIP_SCALING) {
      await ensureActive(ALL);
      await purgeTraffic();
      out('');
      out(
        `more than one core: ${int(EVENTS)} traffic.v1 events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, 3 ACTIVE experiments, drained by 1 and then by 2 evaluator processes sharing the durable consumer (each time into a fresh preview schema, the durable recreated)`,
      );
      const { last } = await publishAll(nc, subject, trafficOf(throughputFlows, EVENTS, 'scaling'));
      const runs: { processes: number; evaluated: number; exact: boolean }[] = [];
      for (const processes of [1, 2]) {
        await jsm.consumers.delete(stream, 'evaluator').catch(() => undefined);
        // The evaluator creates no consumer: the provisioning step declares it again, from the first message.
        await provisionFromEnv(evaluatorEnv);
        const schema = uniqueName('bench_');
        passSchemas.push(schema);
        const measured = await drain(schema, last, EVENTS, {
          processes,
          label: `scaling-k3`,
        });
        const { exact, describe } = await reportsOf(ALL, () => EVENTS);
        await stopEvaluators();
        await dropSchema(schema);
        out(
          `  ${processes} process${processes > 1 ? 'es' : ''}: ${int(measured.evaluated)} events/s evaluated, ${int(measured.settledOnly)} to the last acknowledgement${processes > 1 ? ` (the second ready ${measured.startLagMs.toFixed(0)} ms after the first, counted in the time)` : ''}; ${cpuText(measured)} (summed over the processes); peak RSS ${measured.peakMb.toFixed(0)} MB; ${describe}`,
        );
        runs.push({ processes, evaluated: measured.evaluated, exact });
      }
      const scaling = runs[1].evaluated / runs[0].evaluated;
      out(`  → 2 processes evaluate ${scaling.toFixed(2)} × what 1 does`);
      note({
        label: 'more than one core, 3 ACTIVE, traffic.v1',
        value: `1 process ${int(runs[0].evaluated)} events/s, 2 processes ${int(runs[1].evaluated)} events/s = ${scaling.toFixed(2)} ×`,
      });
      note({
        label: '  report totals exact with 1 and 2 processes',
        value: runs.every((r) => r.exact) ? 'yes' : 'NO',
        target: 'exact',
        met: runs.every((r) => r.exact),
      });
    }

    // 2. Freshness: a fresh evaluator on the main schema; flip and lockdown ACTIVE, noop stopped.
    if (ROUNDS > 0) {
      await purgeTraffic();
      await ensureActive(['flip', 'lockdown']);
      if (active.has('noop')) await stopPreview('noop');
      await startEvaluator(schemas.preview, 'freshness');
      const freshness: Record<string, number[]> = {
        startPreview: [],
        update: [],
        stopPreview: [],
        'live update': [],
        commit: [],
      };
      // The deprecated per-experiment subjects (…edge.{experiment}) and the per-policy one (…edge).
      const logsPrefix = ns.subject(previewLogSubject('bench', 'global', 'edge', ''));
      const policyLogs = logsPrefix.slice(0, -1);
      const logsLastSeq = async () => (await jsm.streams.info(logsStream)).state.last_seq;
      /**
       * The verdicts logged on PREVIEW_LOGS after stream sequence `after`, by experiment id, read
       * with an ordered consumer up to the stream's last message now: the per-policy log's when
       * the evaluator publishes it, the per-experiment records' otherwise.
       */
      const logsAfter = async (after: number): Promise<Map<string, LoggedVerdict[]>> => {
        const byExperiment = new VerdictsByExperiment();
        const until = await logsLastSeq();
        if (until <= after) return byExperiment.result();
        const consumer = await js.consumers.get(logsStream, {
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: after + 1,
        });
        const messages = await consumer.consume({ max_messages: 1000 });
        const timer = setTimeout(() => messages.stop(), 30_000);
        try {
          for await (const message of messages) {
            if (message.subject === policyLogs || message.subject.startsWith(logsPrefix))
              byExperiment.add(message.subject, () => message.json<unknown>());
            if (message.seq >= until || message.info.pending === 0) break;
          }
        } finally {
          clearTimeout(timer);
          messages.stop();
        }
        return byExperiment.result();
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
        records: LoggedVerdict[],
        keep: (r: LoggedVerdict) => boolean = () => true,
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
      out(
        `  evaluator peak RSS over the freshness rounds: ${processStats(running()).peakMb.toFixed(0)} MB`,
      );
      await stopEvaluators();
    }

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
        const readyAt = await startEvaluator(schema, `storage-${flowCount}`);
        const cpuAtReady = evaluators[0].cpuAtReady;
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
        await stopEvaluators();
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
        const measured = await drain(schema, last, MEMORY_EVENTS, { label: `memory-${major}` });
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
        await stopEvaluators();
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
      if (profiles.length > 0) {
        out('  CPU profiles of the evaluator (BENCH_PROFILE=evaluator), share of sampled time:');
        for (const line of profiles) out(`  ${line.label.padEnd(width)}  ${line.value}`);
      }
      const missed = summary.filter((l) => l.target && !l.met).length;
      out(
        `  ${summary.filter((l) => l.target).length - missed} of ${summary.filter((l) => l.target).length} targets met${SKIP_MEMORY ? '; memory scenario skipped (BENCH_SKIP_MEMORY=1)' : ''}${SKIP_STORAGE ? '; storage scenario skipped (BENCH_SKIP_STORAGE=1)' : ''}`,
      );
    }
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
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
