import { PreviewReport } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { inForce, metric as metricOf, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE } from '../../test/example-policies';
import { allFlows, deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/** Traffic.v1 as producers get it wrong: the same event twice, and malformed events among valid ones. */
const etags: Record<string, string> = {};

const report = (experiment: string) => previewReport(system.rpc, system.world, experiment);
const metric = (name: string, labels: Record<string, string> = {}) =>
  metricOf(system.app, name, labels);

/** The live policy's etag the evaluator starts on. */
let liveEtag = '';
const system = evaluatorSystem({
  given: async ({ world }) => {
    liveEtag = await world.policy('web', LIVE);
    etags.block = await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  },
  started: async ({ app, world }) => {
    await inForce(app, world, 'web', (view) => view.etag === liveEtag && view.active.length === 1);
  },
});

describe('duplicates and malformed traffic', () => {
  it('counts an event published again with the same Nats-Msg-Id once, and one seen twice in a batch once', async () => {
    const event = trafficEvent(20, { srcIp: '10.0.1.20' });
    let seq = await publishTraffic(system.nc, system.iso, 'web', [event]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'first copy settled' });
    const before = await report('block');
    // A producer retrying within the stream's duplicate window: JetStream stores it once.
    const js = system.nc.jetstream();
    const subject = system.iso.ns.subject('traffic.v1.acme.global.web');
    const again = await js.publish(subject, JSON.stringify(event), { msgID: event.id });
    expect(again.duplicate).toBe(true);
    // One event in two messages of one batch (held back, then released together): evaluated once.
    const twin = trafficEvent(21, { srcIp: '10.0.1.21' });
    const copies = await Promise.all([
      js.publish(subject, JSON.stringify(twin), { msgID: `${twin.id}-a` }),
      js.publish(subject, JSON.stringify(twin), { msgID: `${twin.id}-b` }),
    ]);
    seq = Math.max(...copies.map((c) => c.seq));
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'copies settled' });
    const after = await report('block');
    const config = (r: PreviewReport) =>
      r.configurations.find((c) => c.experimentEtag === etags.block)!;
    // The twin counts once if both copies shared a batch, twice otherwise (each message is counted once).
    expect(config(after).evaluated - config(before).evaluated).toBeGreaterThanOrEqual(1);
    expect(config(after).evaluated - config(before).evaluated).toBeLessThanOrEqual(2);
    const flows = await allFlows(system.rpc, system.world.experimentName('web', 'block'), {
      filter: 'srcIp = 10.0.1.20',
    });
    expect(flows.map((f) => f.count)).toEqual([1]);
  });

  it('dead-letters each kind of malformed event with its reason, and evaluates every valid event around them', async () => {
    const valid = Array.from({ length: 6 }, (_, i) => trafficEvent(30 + i, { srcIp: '10.0.1.30' }));
    const { id: _id, ...withoutId } = trafficEvent(40);
    const malformed: { payload: string; policy?: string; reason: string | RegExp; kind: string }[] =
      [
        { payload: 'not json {', reason: 'traffic event is not JSON', kind: 'bad_json' },
        {
          payload: JSON.stringify(withoutId),
          reason: "invalid traffic event: event must have required property 'id'",
          kind: 'invalid_event',
        },
        {
          payload: JSON.stringify(trafficEvent(41, { srcIp: '10.0.0.256' })),
          reason: 'invalid traffic event: srcIp "10.0.0.256" is not an IP address',
          kind: 'bad_address',
        },
        {
          payload: JSON.stringify(trafficEvent(42, { destIp: 'fe80::1::2' })),
          reason: 'invalid traffic event: destIp "fe80::1::2" is not an IP address',
          kind: 'bad_address',
        },
        {
          payload: JSON.stringify(trafficEvent(43, { protocol: 'http' as never })),
          reason: /^invalid traffic event: event.protocol must be one of tcp, udp/,
          kind: 'invalid_event',
        },
        {
          payload: JSON.stringify(trafficEvent(44)),
          policy: 'nowhere',
          reason: 'no live policy projects/acme/locations/global/firewallPolicies/nowhere',
          kind: 'unknown_policy',
        },
      ];
    const countsBefore = Object.fromEntries(
      await Promise.all(
        ['bad_json', 'invalid_event', 'bad_address', 'unknown_policy'].map(async (k) => [
          k,
          await metric('evaluator_dead_letters_total', { reason: k }),
        ]),
      ),
    );
    const before = await report('block');
    let seq = 0;
    for (let i = 0; i < malformed.length; i++) {
      seq = await publishTraffic(system.nc, system.iso, 'web', [valid[i]]);
      const bad = malformed[i];
      seq = await publishTraffic(system.nc, system.iso, bad.policy ?? 'web', [bad.payload]);
    }
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'all settled' });
    const letters = await eventually(
      async () => {
        const found = await deadLetters(system.nc, system.iso);
        return found.length >= malformed.length ? found : undefined;
      },
      { what: 'dead letters' },
    );
    expect(letters).toHaveLength(malformed.length);
    malformed.forEach((bad, i) => {
      expect(letters[i].data).toBe(bad.payload);
      if (typeof bad.reason === 'string') expect(letters[i].reason).toBe(bad.reason);
      else expect(letters[i].reason).toMatch(bad.reason);
    });
    expect(letters[5].subject).toBe(system.iso.ns.subject('traffic.v1.acme.global.nowhere'));
    for (const kind of ['bad_json', 'invalid_event', 'bad_address', 'unknown_policy']) {
      const expected = malformed.filter((m) => m.kind === kind).length;
      expect(
        (await metric('evaluator_dead_letters_total', { reason: kind })) - countsBefore[kind],
      ).toBe(expected);
    }
    const after = await report('block');
    const config = (r: PreviewReport) =>
      r.configurations.find((c) => c.experimentEtag === etags.block)!;
    expect(config(after).evaluated - config(before).evaluated).toBe(valid.length);
  });

  it("dead-letters a message whose Nats-Msg-Id is in another project's namespace, counting nothing of it", async () => {
    const before = await report('block');
    const squatter = trafficEvent(50, { srcIp: '10.0.1.50' });
    const js = system.nc.jetstream();
    const subject = system.iso.ns.subject('traffic.v1.acme.global.web');
    const { seq } = await js.publish(subject, JSON.stringify(squatter), {
      msgID: `beta/${squatter.id}`,
    });
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const letter = await eventually(
      async () =>
        (await deadLetters(system.nc, system.iso)).find((l) => l.data === JSON.stringify(squatter)),
      { what: 'its dead letter' },
    );
    expect(letter.reason).toMatch(/namespace, not "acme"'s/);
    expect(await metric('evaluator_dead_letters_total', { reason: 'foreign_message_id' })).toBe(1);
    const config = (r: PreviewReport) =>
      r.configurations.find((c) => c.experimentEtag === etags.block)!;
    const after = await report('block');
    expect(config(after).evaluated).toBe(config(before).evaluated);
    expect(config(after).completeness?.deadLettered).toContainEqual({
      reason: 'foreign_message_id',
      messages: 1,
    });
  });
});
