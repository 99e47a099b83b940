import type { INestApplication } from '@nestjs/common';
import {
  FirewallRule,
  ListPreviewFlowsResponse,
  ListPreviewLogsResponse,
  PREVIEW_SUBJECTS,
  PreviewLogRecord,
  PreviewReport,
  StatusError,
} from '@rollout/contracts';
import { METRICS_REGISTRY } from '@rollout/metrics';
import { NatsRpcClient } from '@rollout/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { PolicyView, previewRecordId } from '@rollout/preview-domain';
import type { Registry } from 'prom-client';
import { PreviewStateService } from './state/preview-state.service';
import { Isolation, cleanUp, isolation, rpcClient, startEvaluator } from '../test/evaluator-app';
import { ExperimentWorld } from '../test/experiment-world';
import { allFlows, deadLetters, streamRecords } from '../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../test/traffic-publishing';

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
  // The bucket exists but its position key does not: the experiment-service is still filling it.
  await world.createBucket({ filled: false });
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
    expect(before.body.checks.snapshot).toEqual({ status: 'down', error: 'waiting for the experiment-service to fill EXPERIMENT_STATE' });
    expect(before.body.checks.nats.status).toBe('up');
    const early = trafficEvent(1, { srcIp: '10.0.1.7' });
    const seq = await publishTraffic(nc, iso, 'web', [early]);
    // Nothing consumes it: the durable consumer still holds it, undelivered.
    const consumer = await (await nc.jetstreamManager()).consumers.info(iso.ns.stream('TRAFFIC'), 'evaluator');
    expect(consumer.num_pending + consumer.num_ack_pending).toBe(1);

    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    expect((await readiness()).status).toBe(503);
    await world.markFilled();
    await eventually(async () => ((await readiness()).status === 200 ? true : undefined), { timeoutMs: 20_000, what: 'ready' });
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'early event settled' });
    const [flow] = await allFlows(rpc, world.experimentName('web', 'block'));
    expect(flow).toMatchObject({ samples: [{ trafficEventId: early.id }], transition: 'ALLOW_TO_DENY', liveResult: { action: 'allow', rulePriority: 100 }, experimentResult: { action: 'deny', rulePriority: 50 } });
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

  const events = [
    trafficEvent(10, { srcIp: '10.0.1.5', destPort: 22 }), // SSH from the blocked range: allow → deny
    trafficEvent(11, { srcIp: '10.0.2.5', destPort: 22 }), // SSH from elsewhere in 10/8: allowed by both
    trafficEvent(12, { srcIp: '203.0.113.9', destPort: 22 }), // outside 10/8: denied by both (rule 200)
    trafficEvent(13, { srcIp: '10.0.1.5', destPort: 443, protocol: 6 }), // HTTPS, by protocol number
    trafficEvent(14, { srcIp: '2001:db8::5', destPort: 80, direction: 'EGRESS' }), // EGRESS: implied allow
  ];

  it('evaluates the live policy and every ACTIVE experiment: exact totals, changed flows, and nothing for the others', async () => {
    await inForce('web', (view) => view.etag === liveEtag && view.active.map((e) => e.etag).join() === `${etags.block},${etags.noop}`);
    const seq = await publishTraffic(nc, iso, 'web', events);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'events settled' });

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
      flows: 1,
      changedOutsideFlows: 0,
      ruleTransitions: [
        { live: { action: 'allow', rulePriority: 100, implied: false }, experiment: { action: 'allow', rulePriority: 100, implied: false }, count: 2 },
        { live: { action: 'allow', rulePriority: null, implied: true }, experiment: { action: 'allow', rulePriority: null, implied: true }, count: 1 },
        { live: { action: 'allow', rulePriority: 100, implied: false }, experiment: { action: 'deny', rulePriority: 50, implied: false }, count: 1 },
        { live: { action: 'deny', rulePriority: 200, implied: false }, experiment: { action: 'deny', rulePriority: 200, implied: false }, count: 1 },
      ],
      ruleTransitionsOmitted: 0,
      // Events 10 to 14 seconds into the minute.
      timeBuckets: [{ startTime: '2025-06-01T00:00:00.000Z', width: 'MINUTE', evaluated: 5, changed: 1, allowToDeny: 1, denyToAllow: 0 }],
      // The other ACTIVE experiment (noop: implied deny) decides two of these events differently.
      disagreements: [
        {
          experiment: world.experimentName('web', 'noop'),
          experimentEtag: etags.noop,
          events: 2,
          topFlows: [
            { direction: 'INGRESS', srcIp: '10.0.1.5', destIp: '192.0.2.10', protocol: 'tcp', destPort: 443, action: 'allow', otherAction: 'deny', count: 1 },
            { direction: 'INGRESS', srcIp: '10.0.2.5', destIp: '192.0.2.10', protocol: 'tcp', destPort: 22, action: 'allow', otherAction: 'deny', count: 1 },
          ],
          eventsOutsideFlows: 0,
        },
      ],
      // Its one differing region (10.0.1.0/24 to port 22) was touched; every experiment rule decided something.
      coverage: { complete: true, differingRegions: 1, regionsOmitted: 0, untouchedRegions: [], exact: true, unmatchedExperimentRules: [], shadowedRules: [] },
      completeness: {
        complete: true,
        summary: "Complete: every message of this policy's traffic is counted, none lost.",
        deadLettered: [],
        deadLetteredMessages: 0,
        redeliveredEvents: 0,
        trafficDroppedMessages: 0,
        trafficDropUndetermined: 0,
        lag: { pendingMessages: 0 },
      },
      firstEventTime: events[0].time,
      lastEventTime: events[4].time,
    });
    // The earlier configuration (the first experiment and live versions) keeps its own totals.
    expect(configurations.slice(1).map((c) => [c.evaluated, c.changed])).toEqual([[1, 1]]);

    // Only the changed decision is kept, as a flow, with the event as its sample.
    const blockFlows = (await allFlows(rpc, world.experimentName('web', 'block'))).filter((f) => f.experimentEtag === etags.block);
    expect(blockFlows).toEqual([
      {
        experimentEtag: etags.block,
        livePolicyEtag: liveEtag,
        direction: 'INGRESS',
        srcIp: '10.0.1.5',
        destIp: '192.0.2.10',
        protocol: 'tcp',
        destPort: 22,
        transition: 'ALLOW_TO_DENY',
        liveResult: { action: 'allow', rulePriority: 100, implied: false },
        experimentResult: { action: 'deny', rulePriority: 50, implied: false },
        count: 1,
        firstEventTime: events[0].time,
        lastEventTime: events[0].time,
        samples: [{ trafficEventId: events[0].id, eventTime: events[0].time, srcPort: events[0].srcPort }],
      },
    ]);

    // The no-op experiment previews deleting the policy: the implied rules decide everything.
    const noopReport = (await report('noop')).configurations;
    expect(noopReport.map((c) => [c.experimentEtag, c.evaluated, c.allowToDeny, c.denyToAllow, c.unchangedDeny, c.unchangedAllow, c.flows])).toEqual([[etags.noop, 5, 3, 0, 1, 1, 3]]);
    const noopFlows = await allFlows(rpc, world.experimentName('web', 'noop'));
    expect(noopFlows.map((f) => [f.srcIp, f.destPort, f.transition, f.experimentResult.implied]).sort()).toEqual(
      [
        ['10.0.1.5', 22, 'ALLOW_TO_DENY', true],
        ['10.0.1.5', 443, 'ALLOW_TO_DENY', true],
        ['10.0.2.5', 22, 'ALLOW_TO_DENY', true],
      ].sort(),
    );

    // Never-started and suspended experiments: no report, no flows.
    // Their readiness is judged on nothing (they have no gates, so they are ready) and the reportEtag digests the empty report.
    expect(await report('paused')).toEqual({
      name: world.experimentName('web', 'paused'),
      configurations: [],
      readiness: expect.objectContaining({ ready: true, gates: [] }),
      reportEtag: expect.stringMatching(/^[\w-]{16}\.[\w-]{16}$/),
    });
    expect(await allFlows(rpc, world.experimentName('web', 'draft'))).toEqual([]);
  });

  it('publishes every record, changed or not, to PREVIEW_LOGS on its experiment subject: the complete log', async () => {
    const ids = new Set(events.map((e) => e.id));
    for (const experiment of ['block', 'noop']) {
      const published = await eventually(async () => {
        const records = (await streamRecords(nc, iso, `preview.v1.logs.acme.global.web.${experiment}`)).filter((r) => ids.has(r.trafficEventId));
        return records.length >= events.length ? records : undefined;
      }, { what: `${experiment} records on PREVIEW_LOGS` });
      expect(published.map((r) => r.trafficEventId).sort()).toEqual([...ids].sort());
      expect(published.every((r) => r.logPrefix === 'FirewallPolicyPreviewLog' && r.experimentEtag === etags[experiment])).toBe(true);
    }
    const [first] = (await streamRecords(nc, iso, 'preview.v1.logs.acme.global.web.block')).filter((r) => r.trafficEventId === events[0].id);
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
    // Nothing for the experiments that are not ACTIVE.
    expect(await streamRecords(nc, iso, 'preview.v1.logs.acme.global.web.draft')).toEqual([]);
  });

  it('counts an event published again with the same Nats-Msg-Id once, and one seen twice in a batch once', async () => {
    const event = trafficEvent(20, { srcIp: '10.0.1.20' });
    let seq = await publishTraffic(nc, iso, 'web', [event]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'first copy settled' });
    const before = await report('block');
    // A producer retrying within the stream's duplicate window: JetStream stores it once.
    const js = nc.jetstream();
    const subject = iso.ns.subject('traffic.v1.acme.global.web');
    const again = await js.publish(subject, JSON.stringify(event), { msgID: event.id });
    expect(again.duplicate).toBe(true);
    // One event in two messages of one batch (held back, then released together): evaluated once.
    const twin = trafficEvent(21, { srcIp: '10.0.1.21' });
    const copies = await Promise.all([js.publish(subject, JSON.stringify(twin), { msgID: `${twin.id}-a` }), js.publish(subject, JSON.stringify(twin), { msgID: `${twin.id}-b` })]);
    seq = Math.max(...copies.map((c) => c.seq));
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'copies settled' });
    const after = await report('block');
    const config = (r: PreviewReport) => r.configurations.find((c) => c.experimentEtag === etags.block)!;
    // The twin counts once if both copies shared a batch, twice otherwise (each message is counted once).
    expect(config(after).evaluated - config(before).evaluated).toBeGreaterThanOrEqual(1);
    expect(config(after).evaluated - config(before).evaluated).toBeLessThanOrEqual(2);
    const flows = await allFlows(rpc, world.experimentName('web', 'block'), { filter: 'srcIp = 10.0.1.20' });
    expect(flows.map((f) => f.count)).toEqual([1]);
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

  it('lists flows newest configuration first, filtered and paged, and the deprecated previewLogs as their samples', async () => {
    // A new live policy version starts a new configuration.
    const newLive = await world.policy('web', [rule(300, 'deny', { srcIpRanges: ['0.0.0.0/0'] })]);
    await inForce('web', (view) => view.etag === newLive);
    const fresh = Array.from({ length: 30 }, (_, i) => trafficEvent(70 + i, { srcIp: `10.0.${i % 3 === 0 ? 1 : 2}.${70 + (i % 5)}`, destPort: i % 2 ? 22 : 443 }));
    const seq = await publishTraffic(nc, iso, 'web', fresh);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled' });
    const parent = world.experimentName('web', 'block');

    const everything = await allFlows(rpc, parent, { pageSize: 1000 });
    const paged = await allFlows(rpc, parent, { pageSize: 3 });
    expect(paged).toEqual(everything);
    // Newest configuration first, and in each the flow seen last first.
    const firstOld = paged.findIndex((f) => f.livePolicyEtag !== newLive);
    expect(firstOld).toBeGreaterThan(0);
    expect(paged.slice(firstOld).every((f) => f.livePolicyEtag !== newLive)).toBe(true);
    const newest = paged.slice(0, firstOld);
    expect(newest.map((f) => f.lastEventTime)).toEqual([...newest.map((f) => f.lastEventTime)].sort().reverse());
    // Under the new live policy (deny everything) the experiment's allow rule 100 opens SSH and HTTPS, but SSH from 10.0.1/24.
    const opened = newest.filter((f) => f.transition === 'DENY_TO_ALLOW');
    expect(opened.reduce((sum, f) => sum + f.count, 0)).toBe(fresh.filter((e) => !(e.srcIp.startsWith('10.0.1.') && e.destPort === 22)).length);

    const filtered = async (filter: string) => allFlows(rpc, parent, { filter, pageSize: 2 });
    expect(await filtered(`transition = DENY_TO_ALLOW AND livePolicyEtag = "${newLive}"`)).toEqual(opened);
    expect((await filtered('ip = 10.0.2.0/24 AND destPort = 22')).every((f) => f.srcIp.startsWith('10.0.2.') && f.destPort === 22)).toBe(true);
    expect((await filtered('ip = 10.0.2.0/24 AND destPort = 22')).length).toBeGreaterThan(0);
    expect(await filtered('srcIp = 198.51.100.0/24')).toEqual([]);
    expect((await filtered('experimentRule = 100 AND liveRule = 300')).map((f) => f.srcIp)).toEqual(opened.map((f) => f.srcIp));
    expect((await filtered('destPort != 22')).every((f) => f.destPort !== 22)).toBe(true);

    // previewLogs (deprecated): every sample of every flow, as the record that was logged.
    const records: PreviewLogRecord[] = [];
    let pageToken: string | undefined;
    do {
      const page = await logs('block', { pageSize: 4, pageToken });
      records.push(...page.previewLogs);
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(records.map((r) => r.trafficEventId)).toEqual(everything.flatMap((f) => f.samples.map((s) => s.trafficEventId)));
    expect(records.every((r) => r.changed)).toBe(true);
    const logged = new Map((await streamRecords(nc, iso, 'preview.v1.logs.acme.global.web.block')).map((r) => [r.id, r]));
    for (const record of records) {
      const { connection, ...rest } = logged.get(record.id) as PreviewLogRecord;
      expect(record).toEqual({ ...rest, connection: { ...connection, protocol: connection.protocol === 6 ? 'tcp' : connection.protocol } });
    }
  });

  it('refuses a bad filter, a bad page token and a malformed name; an experiment with nothing has an empty report and no flows', async () => {
    const parent = world.experimentName('web', 'block');
    const page = await rpc.request<ListPreviewFlowsResponse>(PREVIEW_SUBJECTS.previewFlows, { parent, pageSize: 1 }, { timeoutMs: 5_000 });
    const error = (promise: Promise<unknown>) => promise.then(() => undefined, (e: StatusError) => [e.status, e.message]);
    const flows = (query: Record<string, unknown>) => rpc.request(PREVIEW_SUBJECTS.previewFlows, { parent, ...query }, { timeoutMs: 5_000 });
    expect(await error(flows({ filter: 'destPort = 70000' }))).toEqual(['INVALID_ARGUMENT', 'The filter is not valid: destPort must be a port 0-65535, not "70000".']);
    expect(await error(flows({ pageToken: 'forged' }))).toEqual(['INVALID_ARGUMENT', 'The page token is not one this query issued.']);
    expect((await error(flows({ pageToken: page.nextPageToken, filter: 'destPort = 22' })))?.[0]).toBe('INVALID_ARGUMENT');
    expect((await error(logs('block', { pageToken: page.nextPageToken })))?.[0]).toBe('INVALID_ARGUMENT');
    expect((await error(rpc.request(PREVIEW_SUBJECTS.previewReport, { name: 'projects/acme' }, { timeoutMs: 5_000 })))?.[0]).toBe('INVALID_ARGUMENT');
    expect((await error(rpc.request(PREVIEW_SUBJECTS.previewFlows, { parent: 'projects/acme' }, { timeoutMs: 5_000 })))?.[0]).toBe('INVALID_ARGUMENT');
    // No readiness for an experiment the evaluator does not hold.
    expect(await report('missing')).toEqual({ name: world.experimentName('web', 'missing'), configurations: [], reportEtag: expect.stringMatching(/^[\w-]{16}\.[\w-]{16}$/) });
    expect(await logs('missing')).toEqual({ previewLogs: [] });
    expect(await flows({ parent: world.experimentName('web', 'missing') })).toEqual({ previewFlows: [] });
  });
});
