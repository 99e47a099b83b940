import { FirewallRule, ListPreviewLogsResponse, PREVIEW_LOGS_STREAM, PREVIEW_SUBJECTS, PreviewLogBatch, PreviewReport } from '@rollout/contracts';
import { ServiceProcess, TEST_NATS_URL, eventually, freePort, startServiceProcess } from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import { ExperimentWorld, Isolation, cleanUp, evaluatorEnv, isolation, publishTraffic, rpcClient, settledUpTo, trafficEvent } from '../test-support';

/**
 * Effectively once, with evaluators as real processes (from main.ts): killed with SIGKILL in
 * the middle of a large backlog and restarted, or two replicas sharing the durable consumer,
 * the report counts every event exactly once and previewLogs holds every record once.
 */
const LIVE: FirewallRule[] = [{ priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } }];
const BLOCK: FirewallRule[] = [{ priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } }, ...LIVE];
/** Event i comes from 10.0.(i % 4).x: a quarter of them (10.0.1.x) change from allow to deny. */
const events = (count: number, offset = 0) =>
  Array.from({ length: count }, (_, i) => trafficEvent(i + offset, { srcIp: `10.0.${i % 4}.${(i >> 2) & 255}`, destPort: 22 }));

interface Evaluator {
  process: ServiceProcess;
  port: number;
}

async function startEvaluator(iso: Isolation): Promise<Evaluator> {
  const port = await freePort();
  const process = startServiceProcess('evaluator', evaluatorEnv(iso, { PORT: String(port), EVALUATOR_MAX_ACK_PENDING: '6000' }));
  await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: 'evaluator ready',
  });
  return { process, port };
}

async function evaluatedBy(evaluator: Evaluator): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${evaluator.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('evaluator_traffic_events_total{') && l.includes('outcome="evaluated"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('effectively once', () => {
  let iso: Isolation;
  let nc: NatsConnection;
  let world: ExperimentWorld;
  const running: Evaluator[] = [];

  const report = () => rpcClient(nc, iso).request<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: world.experimentName('web', 'block') }, { timeoutMs: 10_000 });

  /** Every record previewLogs returns, page by page, and how many pages it took. */
  async function allRecordIds(): Promise<string[]> {
    const ids: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await rpcClient(nc, iso).request<ListPreviewLogsResponse>(
        PREVIEW_SUBJECTS.previewLogs,
        { name: world.experimentName('web', 'block'), pageSize: 1000, pageToken },
        { timeoutMs: 10_000 },
      );
      ids.push(...page.previewLogs.map((r) => r.id));
      pageToken = page.nextPageToken;
    } while (pageToken);
    return ids;
  }

  /** Record ids in PREVIEW_LOGS (every message, with any repeats). */
  async function streamRecordIds(): Promise<string[]> {
    const jsm = await nc.jetstreamManager();
    const stream = iso.ns.stream(PREVIEW_LOGS_STREAM);
    const info = await jsm.streams.info(stream);
    const ids: string[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      ids.push(...(await jsm.streams.getMessage(stream, { seq })).json<PreviewLogBatch>().records.map((r) => r.id));
    }
    return ids;
  }

  beforeEach(async () => {
    iso = isolation();
    nc = await connect({ servers: TEST_NATS_URL });
    world = new ExperimentWorld(nc, iso);
    await world.createStream();
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.process.stop()));
    await nc.close();
    await cleanUp(iso);
  });

  it('counts 100,000 events exactly once when an evaluator is killed with SIGKILL mid-stream and restarted', async () => {
    const COUNT = 100_000;
    const first = await startEvaluator(iso);
    running.push(first);
    const publishing = publishTraffic(nc, iso, 'web', events(COUNT));
    // Kill it while it is busy: some batches committed, others in flight, many not yet taken.
    const beforeKill = await eventually(
      async () => {
        const evaluated = (await report()).configurations[0]?.evaluated ?? 0;
        return evaluated >= COUNT / 4 ? evaluated : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: 'a quarter evaluated' },
    );
    await first.process.stop('SIGKILL');
    running.splice(0);
    expect(beforeKill).toBeLessThan(COUNT);
    const lastSeq = await publishing;
    running.push(await startEvaluator(iso));
    await eventually(() => settledUpTo(nc, iso, lastSeq), { timeoutMs: 60_000, intervalMs: 200, what: 'every event settled' });

    const [configuration] = (await report()).configurations;
    expect(configuration).toMatchObject({ evaluated: COUNT, changed: COUNT / 4, allowToDeny: COUNT / 4, unchangedAllow: (3 * COUNT) / 4, denyToAllow: 0, unchangedDeny: 0 });
    expect(configuration.experimentRules.find((r) => r.rulePriority === 10)?.count).toBe(COUNT / 4);
    const ids = await allRecordIds();
    expect(ids).toHaveLength(COUNT);
    expect(new Set(ids).size).toBe(COUNT);
    // And the stream got each record once, including batches the killed process left unpublished.
    const published = await eventually(async () => {
      const found = await streamRecordIds();
      return new Set(found).size === COUNT ? found : undefined;
    }, { timeoutMs: 20_000, intervalMs: 500, what: 'every record on PREVIEW_LOGS' });
    expect(published).toHaveLength(COUNT);
  }, 150_000);

  it('shares the work between two replicas and still counts every event exactly once', async () => {
    const COUNT = 20_000;
    const replicas = [await startEvaluator(iso), await startEvaluator(iso)];
    running.push(...replicas);
    const lastSeq = await publishTraffic(nc, iso, 'web', events(COUNT));
    await eventually(() => settledUpTo(nc, iso, lastSeq), { timeoutMs: 60_000, intervalMs: 200, what: 'every event settled' });
    const [configuration] = (await report()).configurations;
    expect(configuration).toMatchObject({ evaluated: COUNT, changed: COUNT / 4, allowToDeny: COUNT / 4, unchangedAllow: (3 * COUNT) / 4 });
    const shares = await Promise.all(replicas.map(evaluatedBy));
    expect(shares[0] + shares[1]).toBe(COUNT);
    expect(shares[0]).toBeGreaterThan(0);
    expect(shares[1]).toBeGreaterThan(0);
    const ids = await allRecordIds();
    expect(ids).toHaveLength(COUNT);
    expect(new Set(ids).size).toBe(COUNT);
  }, 120_000);
});
