/**
 * The evaluator end to end: 200,000 traffic events for one 1,000-rule live policy, with 1 and
 * then 3 ACTIVE experiments, and with 1 again as traffic.v2alpha batches of 100 events (the
 * next major, beside traffic.v1 on the same stream and consumer). For each, prints the events/s the evaluator evaluates with its
 * logs and report durable (every event acknowledged only after its records and counters were
 * committed, and every preview-log batch on PREVIEW_LOGS), next to the raw JetStream
 * pull-consume-and-ack rate of the same 200,000 events measured in the same run, on the same
 * machine, just before. Then the state-change freshness: after startPreview, an experiment
 * update, stopPreview, a live policy update or a commit returns, how late traffic can still be
 * evaluated against the old state (probe events published every few ms; p50/p99/max).
 * The experiment-service and the evaluator run as their own processes from main.ts.
 * Targets: ≥ 0.5 × raw with 1 ACTIVE experiment, ≥ 0.3 × raw with 3; freshness p99 ≤ 200 ms.
 *
 *   npm run bench -- test/bench/evaluator.bench.ts
 *   (BENCH_EVENTS=200000 BENCH_FRESHNESS_ROUNDS=12 TEST_NATS_URL=… TEST_POSTGRES_URL=… to change them)
 */
import {
  CommitRequest,
  CreateExperimentRequest,
  CreatePolicyRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  ListPreviewLogsResponse,
  Operation,
  PREVIEW_SUBJECTS,
  PreviewReport,
  PreviewRequest,
  TRAFFIC_STREAM,
  TrafficEvent,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
  trafficSubject,
} from '@rollout/contracts';
import { TrafficEvent as TrafficEventV2alpha, trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { NatsNamespace, NatsRpcClient } from '@rollout/nats';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually, freePort, uniqueName } from '@rollout/testing';
import { AckPolicy, DeliverPolicy, NatsConnection, connect } from 'nats';
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_FRESHNESS_ROUNDS ?? 12);
const PROBE_EVERY_MS = 4;
const PROBE_FOR_MS = 400;
const ROOT = join(__dirname, '..', '..');
const out = (line: string) => process.stdout.write(`${line}\n`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    const base = random() < 0.7 ? `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.0` : `172.${16 + Math.floor(random() * 16)}.${Math.floor(random() * 256)}.0`;
    return {
      priority: 1000 + i * 10,
      direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
      action: random() < 0.5 ? 'allow' : 'deny',
      match: {
        srcIpRanges: [`${base}/${prefix}`],
        ...(random() < 0.3 ? { destIpRanges: [`192.168.${Math.floor(random() * 256)}.0/24`] } : {}),
        layer4Configs: [{ ipProtocol: random() < 0.8 ? 'tcp' : 'udp', ports: [ports[Math.floor(random() * ports.length)]] }],
      },
      ...(random() < 0.2 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
    };
  });
}

function trafficEvents(count: number, random: () => number, tag: string): TrafficEvent[] {
  const ports = [22, 80, 443, 3306, 5432, 6379, 8042, 9050, 53, 123];
  const start = Date.parse('2025-06-01T00:00:00Z');
  return Array.from({ length: count }, (_, i): TrafficEvent => {
    const src = random() < 0.85 ? `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}` : `172.${16 + Math.floor(random() * 16)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`;
    return {
      id: `${tag}-${i}`,
      time: new Date(start + i).toISOString(),
      direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
      srcIp: src,
      destIp: `192.168.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`,
      protocol: random() < 0.85 ? 'tcp' : 'udp',
      srcPort: 1024 + Math.floor(random() * 60000),
      destPort: ports[Math.floor(random() * ports.length)],
      ...(random() < 0.3 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
    };
  });
}

function startApp(app: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...(process.env.BENCH_PROFILE === app ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '-r', 'reflect-metadata', '-r', '@swc-node/register', join(ROOT, `apps/${app}/src/main.ts`)], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: 'development', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** CPU seconds of a pid (Linux /proc; user + system), 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Peak resident memory (VmHWM) and CPU seconds of a process, from /proc. */
function processStats(child: ChildProcess): { peakMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { peakMb: peakKb / 1024, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function publishAll(nc: NatsConnection, subject: string, events: TrafficEvent[]): Promise<{ first: number; last: number }> {
  const js = nc.jetstream();
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  for (let i = 0; i < events.length; i += 2000) {
    const acks = await Promise.all(events.slice(i, i + 2000).map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id })));
    for (const ack of acks) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last };
}

/** traffic.v2alpha: the same events in batches of `size`, address fields spelled out. */
async function publishBatches(nc: NatsConnection, subject: string, events: TrafficEvent[], size: number): Promise<{ first: number; last: number; messages: number }> {
  const js = nc.jetstream();
  const toV2alpha = ({ srcIp, destIp, srcPort, destPort, ...rest }: TrafficEvent): TrafficEventV2alpha => ({ ...rest, sourceIp: srcIp, destinationIp: destIp, sourcePort: srcPort, destinationPort: destPort });
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  let messages = 0;
  for (let i = 0; i < events.length; i += size * 20) {
    const batches: TrafficEvent[][] = [];
    for (let j = i; j < Math.min(events.length, i + size * 20); j += size) batches.push(events.slice(j, j + size));
    const acks = await Promise.all(batches.map((batch) => js.publish(subject, JSON.stringify({ events: batch.map(toV2alpha) }), { msgID: `batch-${batch[0].id}` })));
    messages += batches.length;
    for (const ack of acks) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last, messages };
}

/** The baseline: a durable pull consumer over the same events, each acknowledged, nothing else. */
async function rawRate(nc: NatsConnection, stream: string, first: number, count: number): Promise<number> {
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream, { durable_name: 'raw-baseline', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: first, max_ack_pending: 20_000 });
  const consumer = await nc.jetstream().consumers.get(stream, 'raw-baseline');
  const started = performance.now();
  const messages = await consumer.consume({ max_messages: 3000 });
  let n = 0;
  for await (const message of messages) {
    message.ack();
    if (++n === count) break;
  }
  await nc.flush();
  const seconds = (performance.now() - started) / 1000;
  await jsm.consumers.delete(stream, 'raw-baseline');
  return count / seconds;
}

async function main() {
  const namespace = uniqueName('bench');
  const ns = new NatsNamespace(namespace);
  const schemas = { experiment: uniqueName('bench_'), preview: uniqueName('bench_') };
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, HOST: '127.0.0.1', DATABASE_URL: TEST_POSTGRES_URL };
  const evaluatorEnv = { ...common, DATABASE_SCHEMA: schemas.preview, TRAFFIC_MAX_BYTES: String(512 * 1024 ** 2), PREVIEW_LOGS_MAX_BYTES: String(1024 ** 3) };
  const service = startApp('experiment-service', { ...common, PORT: String(await freePort()), DATABASE_SCHEMA: schemas.experiment });
  let evaluator: ChildProcess | undefined;
  let evaluatorPort = 0;
  const nc = await connect({ servers: TEST_NATS_URL });
  const rpc = new NatsRpcClient(nc, ns);
  const pg = new Client({ connectionString: TEST_POSTGRES_URL });
  await pg.connect();
  const ask = <T>(subject: string, data: unknown) => rpc.request<T>(subject, data, { timeoutMs: 30_000 });

  const startEvaluator = async () => {
    evaluatorPort = await freePort();
    evaluator = startApp('evaluator', { ...evaluatorEnv, PORT: String(evaluatorPort) });
    const ready = await eventually(async () => ((await fetch(`http://127.0.0.1:${evaluatorPort}/readyz`).catch(() => undefined))?.status === 200 ? performance.now() : undefined), {
      timeoutMs: 60_000,
      intervalMs: 10,
      what: 'evaluator ready',
    });
    return ready;
  };

  try {
    await eventually(async () => ((await ask(`system.v1.experiment-service.info`, {}).catch(() => undefined)) ? true : undefined), { timeoutMs: 60_000, intervalMs: 250, what: 'experiment-service up' });
    // The evaluator creates TRAFFIC and PREVIEW_LOGS; start it once to declare them.
    await startEvaluator();
    await stop(evaluator);

    const random = prng(42);
    const rules = liveRules(random);
    const parent = 'projects/bench/locations/global';
    const policyName = `${parent}/firewallPolicies/edge`;
    const experimentName = (id: string) => `${policyName}/experiments/${id}`;
    await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.createPolicy, { parent, firewallPolicyId: 'edge', firewallPolicy: { rules }, actor: 'bench' } satisfies CreatePolicyRequest);
    // 1: flips the action of every tenth rule; 2: a new rule in front; 3: the no-op (previews deleting the policy).
    const variants: Record<string, FirewallRule[]> = {
      flip: rules.map((r, i) => (i % 10 === 0 ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r)),
      lockdown: [{ priority: 1, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.128.0.0/9'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '3306'] }] } }, ...rules.slice(0, 999)],
      noop: [],
    };
    for (const [id, experimentRules] of Object.entries(variants)) {
      await ask<Operation>(EXPERIMENT_SUBJECTS.createExperiment, { parent: policyName, experimentId: id, experiment: { firewallPolicy: { rules: experimentRules } }, actor: 'bench' } satisfies CreateExperimentRequest);
    }
    const start = (id: string) => ask<Operation<FirewallPolicyExperiment>>(EXPERIMENT_SUBJECTS.startPreview, { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest);
    const stopPreview = (id: string) => ask<Operation<FirewallPolicyExperiment>>(EXPERIMENT_SUBJECTS.stopPreview, { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest);

    const stream = ns.stream(TRAFFIC_STREAM);
    const subject = ns.subject(trafficSubject('bench', 'global', 'edge'));
    const v2alphaSubject = ns.subject(trafficV2alphaSubject('bench', 'global', 'edge'));
    const BATCH = 100;
    const consumerSettled = async (last: number) => {
      const info = await (await nc.jetstreamManager()).consumers.info(stream, 'evaluator');
      return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0;
    };
    const outboxEmpty = async () => Number((await pg.query(`SELECT count(*) AS n FROM "${schemas.preview}".preview_log_outbox`)).rows[0].n) === 0;

    const results: { experiments: number; major: 'v1' | 'v2alpha'; raw: number; rawMessages: number; evaluated: number; settledOnly: number; peakMb: number; cpuPerEventUs: number; pgCpuPerEventUs: number; exact: boolean }[] = [];
    const expected: Record<string, number> = {};
    const scenarios = [
      { scenario: 1, major: 'v1', active: ['flip'] },
      { scenario: 1, major: 'v2alpha', active: ['flip'] },
      { scenario: 3, major: 'v1', active: ['flip', 'lockdown', 'noop'] },
    ] as const;
    for (const [index, { scenario, major, active }] of scenarios.entries()) {
      for (const id of active) if (!(id in expected)) await start(id);
      for (const id of active) expected[id] = (expected[id] ?? 0) + EVENTS;
      const events = trafficEvents(EVENTS, random, `s${index}`);
      out(`publishing ${EVENTS} events (${scenario} ACTIVE experiment${scenario > 1 ? 's' : ''}, traffic.${major}${major === 'v2alpha' ? ` in batches of ${BATCH}` : ''})…`);
      const { first, last, messages } = major === 'v1' ? { ...(await publishAll(nc, subject, events)), messages: EVENTS } : await publishBatches(nc, v2alphaSubject, events, BATCH);
      const rawMessages = await rawRate(nc, stream, first, messages);
      const raw = (rawMessages * EVENTS) / messages;
      const readyAt = await startEvaluator();
      const cpuAtReady = processStats(evaluator as ChildProcess).cpuSeconds;
      // The evaluator's Postgres backends (this machine's server), to see where the CPU goes.
      const backends: number[] = (await pg.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'evaluator' AND backend_start > now() - interval '2 minutes'`)).rows.map((r) => r.pid);
      const backendCpuAtReady = backends.reduce((sum, pid) => sum + cpuOf(pid), 0);
      let settledAt = 0;
      const doneAt = await eventually(
        async () => {
          if (!settledAt && (await consumerSettled(last))) settledAt = performance.now();
          return settledAt && (await outboxEmpty()) ? performance.now() : undefined;
        },
        { timeoutMs: 600_000, intervalMs: 25, what: 'all events evaluated' },
      );
      const stats = processStats(evaluator as ChildProcess);
      const backendCpu = backends.reduce((sum, pid) => sum + cpuOf(pid), 0) - backendCpuAtReady;
      const reports = await Promise.all(active.map((id) => ask<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: experimentName(id) })));
      // flip has been ACTIVE in every scenario; the others only in the last one.
      const totals = reports.map((r) => r.configurations.reduce((sum, c) => sum + c.evaluated, 0));
      const exact = totals.every((total, i) => total === expected[active[i]]);
      results.push({
        experiments: scenario,
        major,
        raw,
        rawMessages,
        evaluated: EVENTS / ((doneAt - readyAt) / 1000),
        settledOnly: EVENTS / ((settledAt - readyAt) / 1000),
        peakMb: stats.peakMb,
        cpuPerEventUs: ((stats.cpuSeconds - cpuAtReady) * 1e6) / EVENTS,
        pgCpuPerEventUs: (backendCpu * 1e6) / EVENTS,
        exact,
      });
      const changed = reports.map((r, i) => `${r.name.split('/').pop()}: ${totals[i]} evaluated, ${r.configurations[0]?.changed ?? 0} changed`).join('; ');
      const metrics = await (await fetch(`http://127.0.0.1:${evaluatorPort}/metrics`)).text();
      const counters = metrics.split('\n').filter((l) => /^evaluator_(traffic_events_total|dead_letters_total|preview_records_total|store_failures_total)/.test(l)).join(', ');
      out(`  ${changed}; ${counters}`);
      if (index < scenarios.length - 1) await stop(evaluator);
    }

    // Freshness: the evaluator keeps running; flip and lockdown ACTIVE, noop stopped.
    await stopPreview('noop');
    const freshness: Record<string, number[]> = { startPreview: [], update: [], stopPreview: [], 'live update': [], commit: [] };
    const logsOf = async (id: string) =>
      (await ask<ListPreviewLogsResponse>(PREVIEW_SUBJECTS.previewLogs, { name: experimentName(id), pageSize: 1000 })).previewLogs;
    /** Publishes probes for a while after `t0`; returns each probe's id and when its publish was acknowledged. */
    const probe = async (t0: number, round: string) => {
      const sent: { id: string; at: number }[] = [];
      const js = nc.jetstream();
      for (let i = 0; performance.now() - t0 < PROBE_FOR_MS; i++) {
        const event: TrafficEvent = { id: `probe-${round}-${i}`, time: new Date().toISOString(), direction: 'INGRESS', srcIp: '10.200.1.1', destIp: '192.168.0.1', protocol: 'tcp', destPort: 22 };
        const ack = await js.publish(subject, JSON.stringify(event), { msgID: event.id });
        sent.push({ id: event.id, at: performance.now() - t0 });
        await sleep(PROBE_EVERY_MS);
        if (i === 0 && ack.seq === 0) throw new Error('probe not stored');
      }
      const lastSeq = (await (await nc.jetstreamManager()).streams.info(stream)).state.last_seq;
      await eventually(() => consumerSettled(lastSeq).then((ok) => ok || undefined), { timeoutMs: 30_000, what: 'probes settled' });
      return sent;
    };
    /** The latest probe (ms after t0) still evaluated against the old state; 0 when none was. */
    const staleness = (sent: { id: string; at: number }[], isNew: (id: string) => boolean) =>
      sent.reduce((latest, p) => (isNew(p.id) ? latest : Math.max(latest, p.at)), 0);
    let liveEtag: string;
    for (let round = 0; round < ROUNDS; round++) {
      // startPreview: new records for lockdown (stopped first, outside the measure).
      await stopPreview('lockdown');
      await sleep(50);
      const started = await start('lockdown');
      let t0 = performance.now();
      let sent = await probe(t0, `${round}-start`);
      let ids = new Set((await logsOf('lockdown')).filter((r) => r.experimentEtag === started.response?.etag).map((r) => r.trafficEventId));
      freshness.startPreview.push(staleness(sent, (id) => ids.has(id)));

      // An update of an ACTIVE experiment suspends it (AIP-236): its records stop.
      await ask<Operation>(EXPERIMENT_SUBJECTS.updateExperiment, { experiment: { name: experimentName('lockdown'), annotations: { round: String(round) } }, actor: 'bench' } satisfies UpdateExperimentRequest);
      t0 = performance.now();
      sent = await probe(t0, `${round}-update`);
      ids = new Set((await logsOf('lockdown')).map((r) => r.trafficEventId));
      freshness.update.push(staleness(sent, (id) => !ids.has(id)));

      await start('lockdown');
      await sleep(50);
      await stopPreview('lockdown');
      t0 = performance.now();
      sent = await probe(t0, `${round}-stop`);
      ids = new Set((await logsOf('lockdown')).map((r) => r.trafficEventId));
      freshness.stopPreview.push(staleness(sent, (id) => !ids.has(id)));

      // A live policy update: flip's records carry the new live etag.
      const updated = await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.updatePolicy, {
        firewallPolicy: { name: policyName, description: `round ${round}` },
        updateMask: 'description',
        actor: 'bench',
      } satisfies UpdatePolicyRequest);
      t0 = performance.now();
      liveEtag = updated.etag;
      sent = await probe(t0, `${round}-live`);
      ids = new Set((await logsOf('flip')).filter((r) => r.livePolicyEtag === liveEtag).map((r) => r.trafficEventId));
      freshness['live update'].push(staleness(sent, (id) => ids.has(id)));

      // A commit: a fresh experiment (the live rules with one change) becomes the live policy.
      const candidate = `commit-${round}`;
      const created = await ask<Operation<FirewallPolicyExperiment>>(EXPERIMENT_SUBJECTS.createExperiment, {
        parent: policyName,
        experimentId: candidate,
        experiment: { firewallPolicy: { rules: rules.map((r, i) => (i === round ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r)) } },
        actor: 'bench',
      } satisfies CreateExperimentRequest);
      const committed = await ask<Operation<FirewallPolicy>>(EXPERIMENT_SUBJECTS.commit, { name: experimentName(candidate), etag: created.response?.etag, actor: 'bench' } satisfies CommitRequest);
      t0 = performance.now();
      liveEtag = committed.response?.etag as string;
      sent = await probe(t0, `${round}-commit`);
      ids = new Set((await logsOf('flip')).filter((r) => r.livePolicyEtag === liveEtag).map((r) => r.trafficEventId));
      freshness.commit.push(staleness(sent, (id) => ids.has(id)));
    }
    const finalStats = processStats(evaluator as ChildProcess);

    out('');
    out(`evaluator end to end: ${EVENTS} traffic events, one live policy of 1,000 rules (2 shared cores; NATS, Postgres and this load generator included)`);
    for (const r of results) {
      if (r.major === 'v2alpha') {
        // No target of its own: the same work per event, fewer messages; compared with v1's raw rate of one event per message.
        const v1 = results.find((v) => v.major === 'v1' && v.experiments === r.experiments) as (typeof results)[number];
        out(`  ${r.experiments} ACTIVE experiment , traffic.v2alpha batches of ${BATCH}: ${r.evaluated.toFixed(0)} events/s evaluated = ${(r.evaluated / v1.raw).toFixed(2)} × v1 raw (${(r.evaluated / v1.evaluated).toFixed(2)} × v1 evaluated); ` +
          `${r.settledOnly.toFixed(0)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same batches: ${r.rawMessages.toFixed(0)} msgs/s (${r.raw.toFixed(0)} events/s); ` +
          `CPU per event: evaluator ${r.cpuPerEventUs.toFixed(1)} µs, its Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}`);
        continue;
      }
      const ratio = r.evaluated / r.raw;
      const target = r.experiments === 1 ? 0.5 : 0.3;
      out(`  ${r.experiments} ACTIVE experiment${r.experiments > 1 ? 's' : ' '}: ${r.evaluated.toFixed(0)} events/s evaluated (logs and report durable, PREVIEW_LOGS published) = ${ratio.toFixed(2)} × raw; ` +
        `${r.settledOnly.toFixed(0)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same events: ${r.raw.toFixed(0)} msgs/s; ` +
        `CPU per event: evaluator ${r.cpuPerEventUs.toFixed(1)} µs, its Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}; target ≥ ${target} × raw → ${ratio >= target ? 'met' : 'NOT met'}`);
    }
    const all: number[] = [];
    out(`  state-change freshness (${ROUNDS} rounds each; latest probe still evaluated against the old state, ms after the command returned; probes every ~${PROBE_EVERY_MS} ms):`);
    for (const [command, values] of Object.entries(freshness)) {
      const sorted = [...values].sort((a, b) => a - b);
      all.push(...values);
      out(`    ${command.padEnd(13)} p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms`);
    }
    const sortedAll = all.sort((a, b) => a - b);
    out(`    all commands  p99 ${percentile(sortedAll, 99).toFixed(0)} ms → target ≤ 200 ms ${percentile(sortedAll, 99) <= 200 ? 'met' : 'NOT met'}`);
    out(`  evaluator peak RSS over the whole run (second process): ${finalStats.peakMb.toFixed(0)} MB`);
  } finally {
    await stop(evaluator);
    await stop(service);
    for (const schema of Object.values(schemas)) await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pg.end();
    const jsm = await nc.jetstreamManager();
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace}_`)) await jsm.streams.delete(name);
    }
    await nc.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
