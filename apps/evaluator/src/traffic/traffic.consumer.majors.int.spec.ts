import {
  PreviewLogRecord,
  PreviewReport,
  ServiceInfo,
  TRAFFIC_STREAM,
  serviceInfoSubject,
  trafficSubject,
} from '@rollout/contracts';
import { trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { previewRecordId } from '@rollout/domain/preview';
import { eventually } from '@rollout/testing/kit';
import { StorageType, nanos } from 'nats';
import { PreviewStateService } from '../state/preview-state.service';
import { metric as metricOf, previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE } from '../../test/example-policies';
import { allFlows, deadLetters, streamRecords } from '../../test/readouts';
import {
  publishTraffic,
  publishTrafficBatches,
  settledUpTo,
  toV2alpha,
  trafficEvent,
  varied,
} from '../../test/traffic-publishing';

/**
 * Two majors side by side: traffic.v1 (one event per message) and traffic.v2alpha (batches,
 * spelled-out address fields) on one TRAFFIC stream, read by one durable consumer, give the
 * same results (traffic.consumer.majors-dead-letters.int.spec.ts: what either refuses).
 */
/** Published to TRAFFIC before the evaluator ever ran, when TRAFFIC took traffic.v1.> only. */
const early = trafficEvent(1, { srcIp: '10.0.1.1', destPort: 22 });
let earlySeq = 0;

const report = (policy: string) => previewReport(system.rpc, system.world, 'block', policy);
const metric = (name: string, labels: Record<string, string> = {}) =>
  metricOf(system.app, name, labels);
/** Every record of a policy's `block` experiment on PREVIEW_LOGS (the complete log). */
const allLogs = (policy: string) =>
  streamRecords(system.nc, system.iso, `preview.v1.logs.acme.global.${policy}.block`);
/** A record without what names its policy and experiment (the rest must be equal across majors). */
const content = ({
  trafficEventId,
  eventTime,
  connection,
  liveResult,
  experimentResult,
  changed,
  experimentEtag,
}: PreviewLogRecord) => ({
  trafficEventId,
  eventTime,
  connection,
  liveResult,
  experimentResult,
  changed,
  experimentEtag,
});
/** A configuration's totals without its live policy's etag (each policy has its own). */
/** A report's configurations without what names the live policy version (the policies differ). */
const totals = (r: PreviewReport) =>
  r.configurations.map(({ livePolicyEtag: _, liveRuleUsage, ...rest }) => ({
    ...rest,
    ...(liveRuleUsage ? { liveRuleUsage: { ...liveRuleUsage, livePolicyEtag: undefined } } : {}),
  }));

const system = evaluatorSystem({
  given: async ({ nc, iso, world }) => {
    // TRAFFIC as an earlier evaluator created it: traffic.v1 only, with an event waiting in it.
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({
      name: iso.ns.stream(TRAFFIC_STREAM),
      subjects: [iso.ns.subject('traffic.v1.>')],
      storage: StorageType.File,
      max_age: nanos(3600_000),
      max_bytes: 64 * 1024 ** 2,
      duplicate_window: nanos(60_000),
    });
    earlySeq = (
      await nc
        .jetstream()
        .publish(iso.ns.subject(trafficSubject('acme', 'global', 'early')), JSON.stringify(early), {
          msgID: early.id,
        })
    ).seq;
    for (const policy of ['early', 'one', 'two', 'mix']) {
      await world.policy(policy, LIVE);
      await world.experiment(policy, 'block', BLOCK, 'ACTIVE');
    }
  },
  started: async ({ app, world }) => {
    await eventually(
      () =>
        ['early', 'one', 'two', 'mix'].every(
          (p) =>
            app.get(PreviewStateService).state.viewOf(world.policyName(p))?.active.length === 1,
        )
          ? true
          : undefined,
      {
        timeoutMs: 20_000,
        what: 'policies and experiments in force',
      },
    );
  },
});

it('updates a TRAFFIC stream of traffic.v1 only in place to every major, keeping its events', async () => {
  const { nc, iso } = system;
  const info = await (await nc.jetstreamManager()).streams.info(iso.ns.stream(TRAFFIC_STREAM));
  expect(info.config.subjects).toEqual([iso.ns.subject('traffic.>')]);
  expect(info.state.first_seq).toBe(earlySeq);
  await eventually(() => settledUpTo(nc, iso, earlySeq), { what: 'the early event settled' });
  expect((await allLogs('early')).map((r) => r.trafficEventId)).toEqual([early.id]);
});

it('gives the same report and records for events sent as traffic.v1 events and as traffic.v2alpha batches', async () => {
  const { nc, iso, world, rpc } = system;
  const events = varied(100);
  // Policy `one` takes them one per message (v1), policy `two` in batches of 7 (v2alpha).
  const v1Seq = await publishTraffic(nc, iso, 'one', events);
  const v2Seq = await publishTrafficBatches(nc, iso, 'two', events, {
    batchSize: 7,
    headers: {
      'Contract-Version': 'traffic.v2alpha/2.0.0-alpha.1',
      'User-Agent': 'acme-exporter/2.3.1',
    },
  });
  expect(v2Seq - v1Seq).toBe(Math.ceil(events.length / 7));
  await eventually(() => settledUpTo(nc, iso, v2Seq), { what: 'both majors settled' });

  const one = await allLogs('one');
  const two = await allLogs('two');
  expect(one).toHaveLength(events.length);
  expect(two).toHaveLength(events.length);
  const byEvent = (records: PreviewLogRecord[]) =>
    records.map(content).sort((a, b) => a.trafficEventId.localeCompare(b.trafficEventId));
  expect(byEvent(two)).toEqual(byEvent(one));
  // Record ids are the same deterministic function of the event, the experiment and its etag.
  for (const record of two)
    expect(record.id).toBe(
      previewRecordId(
        record.trafficEventId,
        world.experimentName('two', 'block'),
        record.experimentEtag,
      ),
    );
  expect(two.filter((r) => r.changed).length).toBeGreaterThan(0);

  const [reportOne, reportTwo] = [await report('one'), await report('two')];
  expect(reportTwo.configurations[0].evaluated).toBe(events.length);
  expect(totals(reportTwo)).toEqual(totals(reportOne));
  const flows = async (policy: string) =>
    (await allFlows(rpc, world.experimentName(policy, 'block'))).map(
      ({ livePolicyEtag: _, ...flow }) => flow,
    );
  expect(await flows('two')).toEqual(await flows('one'));
  expect(
    await metric('evaluator_traffic_client_events_total', {
      client: 'acme-exporter',
      contract: 'traffic.v2alpha',
    }),
  ).toBe(events.length);
});

it('counts every event once with the majors interleaved, and a batch published again with its Nats-Msg-Id once', async () => {
  const { nc, iso, world, rpc } = system;
  const events = varied(300);
  const before = await metric('evaluator_counted_messages_total', { outcome: 'counted' });
  const js = nc.jetstream();
  const v2alpha = iso.ns.subject(trafficV2alphaSubject('acme', 'global', 'mix'));
  let seq = 0;
  let messages = 0;
  // Interleaved: three v1 singles, then the next five in one v2alpha batch, published twice with one id.
  for (let i = 0; i < events.length; i += 8) {
    const chunk = events.slice(i, i + 8);
    seq = await publishTraffic(nc, iso, 'mix', chunk.slice(0, 3));
    const body = JSON.stringify({ events: chunk.slice(3).map(toV2alpha) });
    const first = await js.publish(v2alpha, body, { msgID: `mix-batch-${i}` });
    const again = await js.publish(v2alpha, body, { msgID: `mix-batch-${i}` });
    expect(again).toMatchObject({ duplicate: true, seq: first.seq });
    seq = first.seq;
    messages += 3 + (chunk.length > 3 ? 1 : 0);
  }
  await eventually(() => settledUpTo(nc, iso, seq), { what: 'interleaved settled' });

  const records = await allLogs('mix');
  expect(records.map((r) => r.trafficEventId).sort()).toEqual(events.map((e) => e.id).sort());
  const { configurations } = await report('mix');
  expect(configurations.map((c) => c.evaluated)).toEqual([events.length]);
  const flows = await allFlows(rpc, world.experimentName('mix', 'block'));
  expect(flows.reduce((sum, f) => sum + f.count, 0)).toBe(configurations[0].changed);
  expect((await metric('evaluator_counted_messages_total', { outcome: 'counted' })) - before).toBe(
    messages,
  );
  expect(await deadLetters(nc, iso)).toEqual([]);
});

it('lists traffic.v2alpha beside traffic.v1 among the packages it speaks', async () => {
  const { rpc } = system;
  const info = await rpc.request<ServiceInfo>(
    serviceInfoSubject('evaluator'),
    {},
    { timeoutMs: 5_000 },
  );
  expect(
    info.contracts
      .filter((c) => c.name.startsWith('traffic.'))
      .map(({ name, version }) => ({ name, version })),
  ).toEqual([
    { name: 'traffic.v1', version: '1.1.0' },
    { name: 'traffic.v2alpha', version: '2.1.0-alpha.1' },
  ]);
});
