import { trafficSubject } from '@rollout/contracts';
import { trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { eventually } from '@rollout/testing/kit';
import { headers as natsHeaders } from 'nats';
import { inForce, metric as metricOf, previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE } from '../../test/example-policies';
import { deadLetters, streamRecords } from '../../test/readouts';
import {
  publishTrafficBatches,
  settledUpTo,
  toV2alpha,
  trafficEvent,
  varied,
} from '../../test/traffic-publishing';

/** What the majors refuse: an unknown major, a Contract-Version of another package, a batch with a bad event. */
/** The live policy's etag the evaluator starts on. */
let liveEtag = '';
const system = evaluatorSystem({
  given: async ({ world }) => {
    liveEtag = await world.policy('two', LIVE);
    await world.experiment('two', 'block', BLOCK, 'ACTIVE');
  },
  started: async ({ app, nc, iso, world }) => {
    await inForce(app, world, 'two', (view) => view.etag === liveEtag && view.active.length === 1);
    // Traffic counted before: the report of `two` has its configuration.
    const seq = await publishTrafficBatches(nc, iso, 'two', varied(100), { batchSize: 7 });
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'earlier traffic settled' });
  },
});

const report = (policy: string) => previewReport(system.rpc, system.world, 'block', policy);
const metric = (name: string, labels: Record<string, string> = {}) =>
  metricOf(system.app, name, labels);
/** Every record of a policy's `block` experiment on PREVIEW_LOGS (the complete log). */
const allLogs = (policy: string) =>
  streamRecords(system.nc, system.iso, `preview.v1.logs.acme.global.${policy}.block`);

it('dead-letters an unknown major, a Contract-Version of another package and a batch with a bad event, with their reasons, and carries on', async () => {
  const { nc, iso } = system;
  const js = nc.jetstream();
  const publish = async (subject: string, body: unknown, headers: Record<string, string> = {}) => {
    const hdrs = natsHeaders();
    for (const [name, value] of Object.entries(headers)) hdrs.set(name, value);
    return (
      await js.publish(
        iso.ns.subject(subject),
        typeof body === 'string' ? body : JSON.stringify(body),
        { headers: hdrs },
      )
    ).seq;
  };
  const good = varied(500).slice(0, 6);
  const before = await report('two');
  const counts = async () =>
    Object.fromEntries(
      await Promise.all(
        ['unknown_major', 'contract_mismatch', 'bad_address'].map(async (k) => [
          k,
          await metric('evaluator_dead_letters_total', { reason: k }),
        ]),
      ),
    );
  const countsBefore = await counts();
  const bad: {
    subject: string;
    body: unknown;
    headers?: Record<string, string>;
    reason: string;
  }[] = [
    {
      subject: 'traffic.v3.acme.global.two',
      body: good[0],
      reason: 'unknown major traffic.v3: this evaluator reads traffic.v1, traffic.v2alpha',
    },
    {
      subject: 'traffic.v2beta.acme.global.two',
      body: { events: [toV2alpha(good[1])] },
      reason: 'unknown major traffic.v2beta: this evaluator reads traffic.v1, traffic.v2alpha',
    },
    {
      subject: trafficV2alphaSubject('acme', 'global', 'two'),
      body: { events: [toV2alpha(good[2])] },
      headers: { 'Contract-Version': 'traffic.v1/1.0.0', 'User-Agent': 'confused/0.1' },
      reason:
        "Contract-Version traffic.v1/1.0.0 does not match the subject's package traffic.v2alpha",
    },
    {
      subject: trafficSubject('acme', 'global', 'two'),
      body: good[3],
      headers: { 'Contract-Version': 'traffic.v2alpha/2.0.0-alpha.1' },
      reason:
        "Contract-Version traffic.v2alpha/2.0.0-alpha.1 does not match the subject's package traffic.v1",
    },
    {
      subject: trafficV2alphaSubject('acme', 'global', 'two'),
      body: { events: [toV2alpha(good[4]), { ...toV2alpha(good[5]), sourceIp: '10.0.0.256' }] },
      reason: 'invalid traffic event: events[1].sourceIp "10.0.0.256" is not an IP address',
    },
  ];
  let seq = 0;
  for (const [i, letter] of bad.entries()) {
    seq = await publish(letter.subject, letter.body, letter.headers);
    // A valid event after each: the consumer keeps going.
    seq = await publishTrafficBatches(nc, iso, 'two', [
      trafficEvent(600 + i, { srcIp: '10.0.1.60', destPort: 22 }),
    ]);
  }
  await eventually(() => settledUpTo(nc, iso, seq), { what: 'all settled' });
  const letters = await eventually(
    async () => {
      const found = await deadLetters(nc, iso);
      return found.length >= bad.length ? found : undefined;
    },
    { what: 'dead letters' },
  );
  expect(letters.map((l) => [l.subject, l.reason, JSON.parse(l.data)])).toEqual(
    bad.map((b) => [iso.ns.subject(b.subject), b.reason, b.body]),
  );
  const countsAfter = await counts();
  expect([
    countsAfter.unknown_major - countsBefore.unknown_major,
    countsAfter.contract_mismatch - countsBefore.contract_mismatch,
    countsAfter.bad_address - countsBefore.bad_address,
  ]).toEqual([2, 2, 1]);
  // Only the valid events after them were evaluated: none of a refused batch's events.
  const after = await report('two');
  expect(after.configurations[0].evaluated - before.configurations[0].evaluated).toBe(bad.length);
  const ids = new Set((await allLogs('two')).map((r) => r.trafficEventId));
  expect(good.slice(0, 6).filter((e) => ids.has(e.id))).toEqual([]);
  expect(
    await metric('evaluator_traffic_client_events_total', {
      client: 'confused',
      contract: 'traffic.v1',
    }),
  ).toBe(1);
  expect(
    await metric('evaluator_traffic_client_events_total', {
      client: 'unknown',
      contract: 'unknown',
    }),
  ).toBeGreaterThan(0);
});
