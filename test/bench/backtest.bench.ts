/**
 * What a backtest costs the live evaluator (docs/backtest.md): a live policy with one ACTIVE
 * experiment and one never started, which is backtested. Each round publishes a backlog with the
 * evaluator stopped, then times how fast a fresh one drains it: A without a backtest, B with one
 * over everything TRAFFIC holds, C without again (A and C bracket B so machine drift shows), D a
 * backtest alone (its replay rate). Target: B ≥ 0.8 × (A + C) / 2.
 *   npm run bench -- test/bench/backtest.bench.ts
 *   (BENCH_EVENTS, BENCH_RULES, BENCH_PAUSE_MS, BENCH_BATCH, BENCH_BUSY_SHARE)
 */
import {
  BacktestOperation,
  EXPERIMENT_SUBJECTS,
  FirewallRule,
  PREVIEW_SUBJECTS,
  TRAFFIC_STREAM,
  trafficSubject,
} from '@rollout/contracts';
import { NatsNamespace, NatsRpcClient } from '@rollout/platform/nats';
import { provisionFromEnv } from '@rollout/provision';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { AckPolicy, DeliverPolicy, NatsConnection, connect } from 'nats';
import type { ChildProcess } from 'node:child_process';
import { out, startApp, stop } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RULES = Number(process.env.BENCH_RULES ?? 200);
const FLOWS = 20_000;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function liveRules(): FirewallRule[] {
  return Array.from({ length: RULES }, (_, i) => ({
    priority: 100 + i,
    direction: 'INGRESS',
    action: i % 3 === 0 ? 'deny' : 'allow',
    match: {
      srcIpRanges: [`10.${i % 256}.0.0/16`],
      layer4Configs: [{ ipProtocol: 'tcp', ports: [String(1000 + (i % 50))] }],
    },
  }));
}

let published = 0;
/** BENCH_EVENTS events from FLOWS flows aimed at the rules, in parallel windows of 2,000. */
async function publish(nc: NatsConnection, subject: string): Promise<number> {
  const js = nc.jetstream();
  let last = 0;
  for (let i = 0; i < EVENTS; i += 2000) {
    const window = [];
    for (let j = i; j < Math.min(EVENTS, i + 2000); j++) {
      const flow = (published + j) % FLOWS;
      const event = {
        id: `bench-${published + j}`,
        time: new Date(Date.UTC(2025, 5, 1) + published + j).toISOString(),
        direction: 'INGRESS',
        srcIp: `10.${flow % 256}.${(flow >> 8) & 255}.${flow & 255}`,
        destIp: '192.0.2.1',
        protocol: 'tcp',
        srcPort: 1024 + (j % 60000),
        destPort: 1000 + (flow % 50),
      };
      window.push(js.publish(subject, JSON.stringify(event), { msgID: event.id }));
    }
    for (const ack of await Promise.all(window)) last = Math.max(last, ack.seq);
  }
  published += EVENTS;
  return last;
}

/** The floor: a pull consumer over the same messages, each acknowledged, nothing else. */
async function rawRate(nc: NatsConnection, stream: string, count: number): Promise<number> {
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream, {
    durable_name: 'raw-baseline',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 20_000,
  });
  const consumer = await nc.jetstream().consumers.get(stream, 'raw-baseline');
  const started = performance.now();
  let n = 0;
  for await (const message of await consumer.consume({ max_messages: 3000 })) {
    message.ack();
    if (++n === count) break;
  }
  const seconds = (performance.now() - started) / 1000;
  await jsm.consumers.delete(stream, 'raw-baseline');
  return count / seconds;
}

const replayRate = (operation: BacktestOperation) =>
  operation.metadata.eventsReplayed /
  ((Date.parse(operation.metadata.endTime ?? '') - Date.parse(operation.metadata.createTime)) /
    1000);

async function main() {
  const namespace = uniqueName('bench');
  const ns = new NatsNamespace(namespace);
  const schemas = { experiment: uniqueName('bench_'), preview: uniqueName('bench_') };
  const common = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    HOST: '127.0.0.1',
    DATABASE_URL: TEST_POSTGRES_URL,
  };
  const evaluatorEnv = {
    ...common,
    DATABASE_SCHEMA: schemas.preview,
    TRAFFIC_MAX_BYTES: String(Math.max(512 * 1024 ** 2, EVENTS * 5 * 400)),
    ...(process.env.BENCH_PAUSE_MS ? { BACKTEST_PAUSE_MS: process.env.BENCH_PAUSE_MS } : {}),
    ...(process.env.BENCH_BATCH ? { BACKTEST_BATCH_SIZE: process.env.BENCH_BATCH } : {}),
    ...(process.env.BENCH_BUSY_SHARE ? { BACKTEST_BUSY_SHARE: process.env.BENCH_BUSY_SHARE } : {}),
  };
  // The provisioning step, before the services (docs/bus-security.md).
  await provisionFromEnv(evaluatorEnv);
  const service = startApp(
    'experiment-service',
    { ...common, PORT: String(await freePort()), DATABASE_SCHEMA: schemas.experiment },
    'backtest',
  );
  let evaluator: ChildProcess | undefined;
  const nc = await connect({ servers: TEST_NATS_URL });
  const jsm = await nc.jetstreamManager();
  const rpc = new NatsRpcClient(nc, ns);
  const ask = <T>(subject: string, data: unknown) =>
    rpc.request<T>(subject, data, { timeoutMs: 30_000 });
  const stream = ns.stream(TRAFFIC_STREAM);
  const startEvaluator = async () => {
    const port = await freePort();
    evaluator = startApp('evaluator', { ...evaluatorEnv, PORT: String(port) }, 'backtest');
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 10, what: 'evaluator ready' },
    );
  };
  const settled = async (last: number) => {
    const info = await jsm.consumers.info(stream, 'evaluator');
    return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
  };
  const finished = (name: string) =>
    eventually(
      async () => {
        const operation = await ask<BacktestOperation>(PREVIEW_SUBJECTS.getOperation, { name });
        return operation.done ? operation : undefined;
      },
      { timeoutMs: 1_800_000, intervalMs: 100, what: 'backtest done' },
    );
  const candidate = 'projects/bench/locations/global/firewallPolicies/edge/experiments/candidate';
  const backtest = () => ask<BacktestOperation>(PREVIEW_SUBJECTS.backtest, { name: candidate });

  try {
    await eventually(
      async () =>
        (await ask('system.v1.experiment-service.info', {}).catch(() => undefined))
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 250, what: 'experiment-service up' },
    );
    await startEvaluator();
    const rules = liveRules();
    const parent = 'projects/bench/locations/global';
    const policy = `${parent}/firewallPolicies/edge`;
    await ask(EXPERIMENT_SUBJECTS.createPolicy, {
      parent,
      firewallPolicyId: 'edge',
      firewallPolicy: { rules },
      actor: 'bench',
    });
    const flip = rules.map((r, i) =>
      i % 10 === 0 ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r,
    );
    const front: FirewallRule = {
      priority: 1,
      direction: 'INGRESS',
      action: 'deny',
      match: {
        srcIpRanges: ['10.0.0.0/9'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['1000-1024'] }],
      },
    };
    await ask(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: policy,
      experimentId: 'flip',
      experiment: { firewallPolicy: { rules: flip } },
      actor: 'bench',
    });
    await ask(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: policy,
      experimentId: 'candidate',
      experiment: { firewallPolicy: { rules: [front, ...rules] } },
      actor: 'bench',
    });
    await ask(EXPERIMENT_SUBJECTS.startPreview, {
      name: `${policy}/experiments/flip`,
      actor: 'bench',
    });
    await eventually(async () => ((await backtest().catch(() => undefined)) ? true : undefined), {
      what: 'the evaluator holding both experiments',
    });
    await stop(evaluator);

    const subject = ns.subject(trafficSubject('bench', 'global', 'edge'));
    /** Publishes a backlog with the evaluator stopped, then times how fast a fresh evaluator drains it (with a backtest started at once, or not). */
    const round = async (withBacktest: boolean) => {
      const last = await publish(nc, subject);
      await startEvaluator();
      const started = performance.now();
      const operation = withBacktest ? await backtest() : undefined;
      await eventually(() => settled(last), {
        timeoutMs: 1_800_000,
        intervalMs: 25,
        what: 'backlog settled',
      });
      const live = EVENTS / ((performance.now() - started) / 1000);
      const replayed = operation ? await finished(operation.name) : undefined;
      await stop(evaluator);
      return { live, replayed };
    };

    const floor = await (async () => {
      const last = await publish(nc, subject);
      const rate = await rawRate(nc, stream, last);
      await startEvaluator();
      await eventually(() => settled(last), {
        timeoutMs: 1_800_000,
        intervalMs: 25,
        what: 'floor traffic settled',
      });
      await stop(evaluator);
      return rate;
    })();
    out(
      `floor (raw JetStream pull-consume-and-ack, ${int(published)} messages): ${int(floor)} messages/s`,
    );
    const a = await round(false);
    out(`A. live, no backtest: ${int(a.live)} events/s`);
    const b = await round(true);
    out(
      `B. live, backtest of ${int(b.replayed!.metadata.eventsReplayed)} events running: ${int(b.live)} events/s; the backtest replayed ${int(replayRate(b.replayed!))} events/s`,
    );
    const c = await round(false);
    out(`C. live, no backtest: ${int(c.live)} events/s`);
    await startEvaluator();
    const alone = await finished((await backtest()).name);
    await stop(evaluator);
    out(
      `D. backtest alone (evaluator idle), ${int(alone.metadata.eventsReplayed)} events: ${int(replayRate(alone))} events/s`,
    );
    const ratio = b.live / ((a.live + c.live) / 2);
    out(
      `live with a backtest running: ${ratio.toFixed(2)} × without (target ≥ 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'}); live without is ${((a.live + c.live) / 2 / floor).toFixed(2)} × the floor`,
    );
  } finally {
    await stop(evaluator);
    await stop(service);
    await nc.close();
    await removeTestResources({ schema: schemas.experiment, namespace });
    await removeTestResources({ schema: schemas.preview });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
