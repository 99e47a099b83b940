import type { INestApplication } from '@nestjs/common';
import {
  FirewallRule,
  ListPreviewLogsResponse,
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
  PreviewLogBatch,
  PreviewLogRecord,
  PreviewReport,
  StatusError,
} from '@rollout/contracts';
import { METRICS_REGISTRY } from '@rollout/metrics';
import { NatsRpcClient } from '@rollout/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing';
import { AckPolicy, NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { PolicyView, previewRecordId } from '@rollout/preview-domain';
import type { Registry } from 'prom-client';
import { PreviewStateService } from './state/preview-state.service';
import {
  ExperimentWorld,
  Isolation,
  cleanUp,
  deadLetters,
  isolation,
  publishTraffic,
  rpcClient,
  settledUpTo,
  startEvaluator,
  trafficEvent,
} from './test-support';

/**
 * The evaluator in-process on its own namespace and schema; the experiment service's domain
 * events are published by the test exactly as its relay publishes them.
 */
const rule = (priority: number, action: 'allow' | 'deny', match: FirewallRule['match'], extra: Partial<FirewallRule> = {}): FirewallRule => ({ priority, direction: 'INGRESS', action, match, ...extra });
const LIVE = [
  rule(100, 'allow', { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }] }),
  rule(200, 'deny', { srcIpRanges: ['0.0.0.0/0'] }),
];
/** The change under test: no more SSH from 10.0.1.0/24. */
const BLOCK = [rule(50, 'deny', { srcIpRanges: ['10.0.1.0/24'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] }), ...LIVE];

let iso: Isolation;
let nc: NatsConnection;
let app: INestApplication;
let rpc: NatsRpcClient;
let world: ExperimentWorld;
let base: string;

const logs = (experiment: string, query: { changedOnly?: boolean; pageSize?: number; pageToken?: string } = {}) =>
  rpc.request<ListPreviewLogsResponse>(PREVIEW_SUBJECTS.previewLogs, { name: world.experimentName('web', experiment), ...query }, { timeoutMs: 5_000 });
const report = (experiment: string, policy = 'web') =>
  rpc.request<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: world.experimentName(policy, experiment) }, { timeoutMs: 5_000 });

async function allLogs(experiment: string, query: { changedOnly?: boolean; pageSize?: number } = {}): Promise<PreviewLogRecord[]> {
  const records: PreviewLogRecord[] = [];
  let pageToken: string | undefined;
  do {
    const page = await logs(experiment, { ...query, pageToken });
    records.push(...page.previewLogs);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return records;
}

const metric = async (name: string, labels: Record<string, string> = {}) => {
  const found = await app.get<Registry>(METRICS_REGISTRY).getSingleMetric(name)?.get();
  return found?.values.filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value)).reduce((sum, v) => sum + v.value, 0) ?? 0;
};

/** Waits until the evaluator's view of a live policy satisfies `ready` (the event has been applied). */
const inForce = (policy: string, ready: (view: PolicyView) => boolean) =>
  eventually(() => {
    const view = app.get(PreviewStateService).state.viewOf(world.policyName(policy));
    return view && ready(view) ? true : undefined;
  }, { what: `state of ${policy} in force` });

const readiness = async () => {
  const response = await fetch(`${base}/readyz`);
  return { status: response.status, body: (await response.json()) as { checks: Record<string, { status: string; error?: string }> } };
};

beforeAll(async () => {
  iso = isolation();
  nc = await connect({ servers: TEST_NATS_URL });
  rpc = rpcClient(nc, iso);
  world = new ExperimentWorld(nc, iso);
  // EXPERIMENT_EVENTS takes one consumer, and the test holds it: the evaluator starts, but
  // cannot read its snapshot until the test lets go.
  await world.createStream({ maxConsumers: 1 });
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(iso.ns.stream('EXPERIMENT_EVENTS'), { durable_name: 'slot-holder', ack_policy: AckPolicy.None });
  app = await startEvaluator(iso);
  base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await app?.close();
  await nc?.close();
  if (iso) await cleanUp(iso);
});

describe('before its snapshot of live policies and experiments is loaded', () => {
  it('is not ready and consumes no traffic; once loaded, it evaluates that traffic against the snapshot', async () => {
    await eventually(async () => ((await readiness()).body.checks.nats.status === 'up' ? true : undefined), { what: 'NATS up' });
    const before = await readiness();
    expect(before.status).toBe(503);
    expect(before.body.checks.snapshot).toEqual({ status: 'down', error: 'loading live policies and experiments from EXPERIMENT_EVENTS' });
    expect(before.body.checks.nats.status).toBe('up');
    const early = trafficEvent(1, { srcIp: '10.0.1.7' });
    const seq = await publishTraffic(nc, iso, 'web', [early]);
    // Nothing consumes it: the durable consumer still holds it, undelivered.
    const consumer = await (await nc.jetstreamManager()).consumers.info(iso.ns.stream('TRAFFIC'), 'evaluator');
    expect(consumer.num_pending + consumer.num_ack_pending).toBe(1);

    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    expect((await readiness()).status).toBe(503);
    const jsm = await nc.jetstreamManager();
    const stream = iso.ns.stream('EXPERIMENT_EVENTS');
    await jsm.consumers.delete(stream, 'slot-holder');
    await eventually(async () => ((await readiness()).status === 200 ? true : undefined), { timeoutMs: 20_000, what: 'ready' });
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'early event settled' });
    const [record] = (await logs('block')).previewLogs;
    expect(record).toMatchObject({ trafficEventId: early.id, changed: true, liveResult: { action: 'allow', rulePriority: 100 }, experimentResult: { action: 'deny', rulePriority: 50 } });
    expect(await deadLetters(nc, iso)).toEqual([]);
  });
});

describe('evaluating traffic', () => {
  let liveEtag: string;
  const etags: Record<string, string> = {};

  beforeAll(async () => {
    liveEtag = await world.policy('web', LIVE);
    etags.block = await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    etags.noop = await world.experiment('web', 'noop', [], 'ACTIVE');
    await world.experiment('web', 'draft', BLOCK);
    await world.experiment('web', 'paused', BLOCK, 'SUSPENDED');
  });

  it('evaluates the live policy and every ACTIVE experiment, one record each, and nothing for the others', async () => {
    const events = [
      trafficEvent(10, { srcIp: '10.0.1.5', destPort: 22 }), // SSH from the blocked range: allow → deny
      trafficEvent(11, { srcIp: '10.0.2.5', destPort: 22 }), // SSH from elsewhere in 10/8: allowed by both
      trafficEvent(12, { srcIp: '203.0.113.9', destPort: 22 }), // outside 10/8: denied by both (rule 200)
      trafficEvent(13, { srcIp: '10.0.1.5', destPort: 443, protocol: 6 }), // HTTPS, by protocol number
      trafficEvent(14, { srcIp: '2001:db8::5', destPort: 80, direction: 'EGRESS' }), // EGRESS: implied allow
    ];
    await inForce('web', (view) => view.etag === liveEtag && view.active.map((e) => e.etag).join() === `${etags.block},${etags.noop}`);
    const seq = await publishTraffic(nc, iso, 'web', events);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'events settled' });

    const block = (await allLogs('block')).filter((r) => events.some((e) => e.id === r.trafficEventId));
    expect(block.map((r) => [r.trafficEventId, r.liveResult, r.experimentResult, r.changed]).sort()).toEqual(
      [
        [events[0].id, { action: 'allow', rulePriority: 100, implied: false }, { action: 'deny', rulePriority: 50, implied: false }, true],
        [events[1].id, { action: 'allow', rulePriority: 100, implied: false }, { action: 'allow', rulePriority: 100, implied: false }, false],
        [events[2].id, { action: 'deny', rulePriority: 200, implied: false }, { action: 'deny', rulePriority: 200, implied: false }, false],
        [events[3].id, { action: 'allow', rulePriority: 100, implied: false }, { action: 'allow', rulePriority: 100, implied: false }, false],
        [events[4].id, { action: 'allow', rulePriority: null, implied: true }, { action: 'allow', rulePriority: null, implied: true }, false],
      ].sort(),
    );
    const first = block.find((r) => r.trafficEventId === events[0].id) as PreviewLogRecord;
    expect(first).toEqual({
      logPrefix: 'FirewallPolicyPreviewLog',
      id: previewRecordId(events[0].id, world.experimentName('web', 'block'), etags.block),
      experiment: world.experimentName('web', 'block'),
      firewallPolicy: world.policyName('web'),
      experimentEtag: etags.block,
      livePolicyEtag: liveEtag,
      trafficEventId: events[0].id,
      eventTime: events[0].time,
      connection: { direction: 'INGRESS', srcIp: '10.0.1.5', destIp: '192.0.2.10', protocol: 'tcp', srcPort: events[0].srcPort, destPort: 22 },
      liveResult: { action: 'allow', rulePriority: 100, implied: false },
      experimentResult: { action: 'deny', rulePriority: 50, implied: false },
      changed: true,
    });

    // The no-op experiment previews deleting the policy: the implied rules decide everything.
    const noop = (await allLogs('noop')).filter((r) => events.some((e) => e.id === r.trafficEventId));
    expect(noop.map((r) => [r.trafficEventId, r.experimentResult.action, r.experimentResult.implied, r.changed]).sort()).toEqual(
      [
        [events[0].id, 'deny', true, true],
        [events[1].id, 'deny', true, true],
        [events[2].id, 'deny', true, false],
        [events[3].id, 'deny', true, true],
        [events[4].id, 'allow', true, false],
      ].sort(),
    );

    // Never-started and suspended experiments: no records, no report.
    expect((await logs('draft')).previewLogs).toEqual([]);
    expect(await report('paused')).toEqual({ name: world.experimentName('web', 'paused'), configurations: [] });

    // The report of this configuration: exactly these five evaluations.
    const { configurations } = await report('block');
    expect(configurations[0]).toEqual({
      experimentEtag: etags.block,
      livePolicyEtag: liveEtag,
      evaluated: 5,
      changed: 1,
      allowToDeny: 1,
      denyToAllow: 0,
      unchangedAllow: 3,
      unchangedDeny: 1,
      liveRules: [
        { rulePriority: 100, implied: false, action: 'allow', count: 3 },
        { rulePriority: null, implied: true, action: 'allow', count: 1 },
        { rulePriority: 200, implied: false, action: 'deny', count: 1 },
      ],
      experimentRules: [
        { rulePriority: 100, implied: false, action: 'allow', count: 2 },
        { rulePriority: null, implied: true, action: 'allow', count: 1 },
        { rulePriority: 50, implied: false, action: 'deny', count: 1 },
        { rulePriority: 200, implied: false, action: 'deny', count: 1 },
      ],
      topChangedSources: [{ srcIp: '10.0.1.5', count: 1 }],
      topChangedDestinationPorts: [{ protocol: 'tcp', destPort: 22, count: 1 }],
      firstEventTime: events[0].time,
      lastEventTime: events[4].time,
    });
    // The earlier configuration (the first experiment and live versions) keeps its own totals.
    expect(configurations.slice(1).map((c) => [c.evaluated, c.changed])).toEqual([[1, 1]]);
    const noopReport = (await report('noop')).configurations;
    expect(noopReport.map((c) => [c.experimentEtag, c.evaluated, c.allowToDeny, c.denyToAllow, c.unchangedDeny, c.unchangedAllow])).toEqual([[etags.noop, 5, 3, 0, 1, 1]]);
  });

  it('publishes every record to PREVIEW_LOGS on its experiment subject, once', async () => {
    const jsm = await nc.jetstreamManager();
    const stream = iso.ns.stream(PREVIEW_LOGS_STREAM);
    const stored = await allLogs('block');
    const published = await eventually(async () => {
      const info = await jsm.streams.info(stream);
      const records: PreviewLogRecord[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message.subject === iso.ns.subject('preview.v1.logs.acme.global.web.block')) records.push(...message.json<PreviewLogBatch>().records);
      }
      return records.length >= stored.length ? records : undefined;
    }, { what: 'records on PREVIEW_LOGS' });
    expect(published.map((r) => r.id).sort()).toEqual(stored.map((r) => r.id).sort());
    expect(published.every((r) => r.logPrefix === 'FirewallPolicyPreviewLog')).toBe(true);
  });

  it('never counts an event twice for one experiment version, even when it arrives again as a new message', async () => {
    const event = trafficEvent(20, { srcIp: '10.0.1.20' });
    let seq = await publishTraffic(nc, iso, 'web', [event]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'first copy settled' });
    const before = await report('block');
    const duplicatesBefore = await metric('evaluator_preview_records_total', { outcome: 'duplicate' });
    // The same event id, past the stream's duplicate window (a new Nats-Msg-Id), twice.
    const js = nc.jetstream();
    const subject = iso.ns.subject('traffic.v1.acme.global.web');
    await js.publish(subject, JSON.stringify(event), { msgID: `${event.id}-again` });
    seq = (await js.publish(subject, JSON.stringify(event), { msgID: `${event.id}-and-again` })).seq;
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'copies settled' });
    expect(await report('block')).toEqual(before);
    expect((await allLogs('block')).filter((r) => r.trafficEventId === event.id)).toHaveLength(1);
    // The store refused the copies' records (both experiments'); two copies in one batch are evaluated once.
    expect((await metric('evaluator_preview_records_total', { outcome: 'duplicate' })) - duplicatesBefore).toBeGreaterThanOrEqual(2);
  });

  it('dead-letters each kind of malformed event with its reason, and evaluates every valid event around them', async () => {
    const valid = Array.from({ length: 6 }, (_, i) => trafficEvent(30 + i, { srcIp: '10.0.1.30' }));
    const { id: _id, ...withoutId } = trafficEvent(40);
    const malformed: { payload: string; policy?: string; reason: string | RegExp; kind: string }[] = [
      { payload: 'not json {', reason: 'traffic event is not JSON', kind: 'bad_json' },
      { payload: JSON.stringify(withoutId), reason: "invalid traffic event: event must have required property 'id'", kind: 'invalid_event' },
      { payload: JSON.stringify(trafficEvent(41, { srcIp: '10.0.0.256' })), reason: 'invalid traffic event: srcIp "10.0.0.256" is not an IP address', kind: 'bad_address' },
      { payload: JSON.stringify(trafficEvent(42, { destIp: 'fe80::1::2' })), reason: 'invalid traffic event: destIp "fe80::1::2" is not an IP address', kind: 'bad_address' },
      { payload: JSON.stringify(trafficEvent(43, { protocol: 'http' as never })), reason: /^invalid traffic event: event.protocol must be one of tcp, udp/, kind: 'invalid_event' },
      { payload: JSON.stringify(trafficEvent(44)), policy: 'nowhere', reason: 'no live policy projects/acme/locations/global/firewallPolicies/nowhere', kind: 'unknown_policy' },
    ];
    const countsBefore = Object.fromEntries(await Promise.all(['bad_json', 'invalid_event', 'bad_address', 'unknown_policy'].map(async (k) => [k, await metric('evaluator_dead_letters_total', { reason: k })])));
    const before = await report('block');
    let seq = 0;
    for (let i = 0; i < malformed.length; i++) {
      seq = await publishTraffic(nc, iso, 'web', [valid[i]]);
      const bad = malformed[i];
      seq = await publishTraffic(nc, iso, bad.policy ?? 'web', [bad.payload]);
    }
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'all settled' });
    const letters = await eventually(async () => {
      const found = await deadLetters(nc, iso);
      return found.length >= malformed.length ? found : undefined;
    }, { what: 'dead letters' });
    expect(letters).toHaveLength(malformed.length);
    malformed.forEach((bad, i) => {
      expect(letters[i].data).toBe(bad.payload);
      if (typeof bad.reason === 'string') expect(letters[i].reason).toBe(bad.reason);
      else expect(letters[i].reason).toMatch(bad.reason);
    });
    expect(letters[5].subject).toBe(iso.ns.subject('traffic.v1.acme.global.nowhere'));
    for (const kind of ['bad_json', 'invalid_event', 'bad_address', 'unknown_policy']) {
      const expected = malformed.filter((m) => m.kind === kind).length;
      expect((await metric('evaluator_dead_letters_total', { reason: kind })) - countsBefore[kind]).toBe(expected);
    }
    const after = await report('block');
    const config = (r: PreviewReport) => r.configurations.find((c) => c.experimentEtag === etags.block)!;
    expect(config(after).evaluated - config(before).evaluated).toBe(valid.length);
  });

  it('pages through the logs, changed ones only if asked, newest configuration first, never a record twice', async () => {
    // A new live policy version starts a new configuration.
    const newLive = await world.policy('web', [rule(300, 'deny', { srcIpRanges: ['0.0.0.0/0'] })]);
    await inForce('web', (view) => view.etag === newLive);
    const seq = await publishTraffic(nc, iso, 'web', Array.from({ length: 30 }, (_, i) => trafficEvent(70 + i, { srcIp: i % 3 === 0 ? '10.0.1.70' : '10.0.2.70' })));
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled' });

    const everything = await allLogs('block', { pageSize: 1000 });
    const paged = await allLogs('block', { pageSize: 7 });
    expect(paged.map((r) => r.id)).toEqual(everything.map((r) => r.id));
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length);
    // Newest configuration first: every record of the new live policy comes before the old ones.
    const firstOld = paged.findIndex((r) => r.livePolicyEtag !== newLive);
    expect(firstOld).toBeGreaterThan(0);
    expect(paged.slice(firstOld).every((r) => r.livePolicyEtag !== newLive)).toBe(true);

    const changed = await allLogs('block', { changedOnly: true, pageSize: 3 });
    expect(changed.map((r) => r.id)).toEqual(everything.filter((r) => r.changed).map((r) => r.id));
    // Under the new live policy (deny everything) the experiment's allow-SSH rule 100 changes things.
    expect(changed.filter((r) => r.livePolicyEtag === newLive).length).toBeGreaterThan(0);

    const configurations = (await report('block')).configurations;
    expect(configurations[0].livePolicyEtag).toBe(newLive);
    expect(configurations.map((c) => c.livePolicyEtag)).toContain(liveEtag);
  });

  it('refuses a bad page token and a malformed name; an experiment with no records has none and an empty report', async () => {
    const page = await logs('block', { pageSize: 1 });
    const error = (promise: Promise<unknown>) => promise.then(() => undefined, (e: StatusError) => e.status);
    expect(await error(logs('block', { pageToken: 'forged' }))).toBe('INVALID_ARGUMENT');
    expect(await error(logs('block', { pageToken: page.nextPageToken, changedOnly: true }))).toBe('INVALID_ARGUMENT');
    expect(await error(rpc.request(PREVIEW_SUBJECTS.previewReport, { name: 'projects/acme' }, { timeoutMs: 5_000 }))).toBe('INVALID_ARGUMENT');
    expect(await report('missing')).toEqual({ name: world.experimentName('web', 'missing'), configurations: [] });
    expect(await logs('missing')).toEqual({ previewLogs: [] });
  });
});
