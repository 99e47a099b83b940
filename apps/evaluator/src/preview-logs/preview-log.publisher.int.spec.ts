import { previewRecordId } from '@rollout/domain/preview';
import { eventually } from '@rollout/testing/kit';
import { inForce } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE, exampleEvents } from '../../test/example-policies';
import { streamRecords } from '../../test/readouts';
import { publishTraffic, settledUpTo } from '../../test/traffic-publishing';

/** PREVIEW_LOGS, the complete per-event log: what the evaluator publishes for every event it evaluates. */
let liveEtag: string;
const etags: Record<string, string> = {};
const events = exampleEvents();
const system = evaluatorSystem({
  given: async ({ world }) => {
    liveEtag = await world.policy('web', LIVE);
    etags.block = await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    etags.noop = await world.experiment('web', 'noop', [], 'ACTIVE');
    await world.experiment('web', 'draft', BLOCK);
  },
  started: async ({ app, nc, iso, world }) => {
    await inForce(app, world, 'web', (view) => view.etag === liveEtag && view.active.length === 2);
    const seq = await publishTraffic(nc, iso, 'web', events);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'events settled' });
  },
});

describe('the complete log', () => {
  it('publishes every record, changed or not, to PREVIEW_LOGS on its experiment subject: the complete log', async () => {
    const { nc, iso, world } = system;
    const ids = new Set(events.map((e) => e.id));
    for (const experiment of ['block', 'noop']) {
      const published = await eventually(
        async () => {
          const records = (
            await streamRecords(nc, iso, `preview.v1.logs.acme.global.web.${experiment}`)
          ).filter((r) => ids.has(r.trafficEventId));
          return records.length >= events.length ? records : undefined;
        },
        { what: `${experiment} records on PREVIEW_LOGS` },
      );
      expect(published.map((r) => r.trafficEventId).sort()).toEqual([...ids].sort());
      expect(
        published.every(
          (r) =>
            r.logPrefix === 'FirewallPolicyPreviewLog' && r.experimentEtag === etags[experiment],
        ),
      ).toBe(true);
    }
    const [first] = (await streamRecords(nc, iso, 'preview.v1.logs.acme.global.web.block')).filter(
      (r) => r.trafficEventId === events[0].id,
    );
    expect(first).toEqual({
      logPrefix: 'FirewallPolicyPreviewLog',
      id: previewRecordId(events[0].id, world.experimentName('web', 'block'), etags.block),
      experiment: world.experimentName('web', 'block'),
      firewallPolicy: world.policyName('web'),
      experimentEtag: etags.block,
      livePolicyEtag: liveEtag,
      trafficEventId: events[0].id,
      eventTime: events[0].time,
      connection: {
        direction: 'INGRESS',
        srcIp: '10.0.1.5',
        destIp: '192.0.2.10',
        protocol: 'tcp',
        srcPort: events[0].srcPort,
        destPort: 22,
      },
      liveResult: { action: 'allow', rulePriority: 100, implied: false },
      experimentResult: { action: 'deny', rulePriority: 50, implied: false },
      changed: true,
    });
    // Nothing for the experiments that are not ACTIVE.
    expect(await streamRecords(nc, iso, 'preview.v1.logs.acme.global.web.draft')).toEqual([]);
  });
});
