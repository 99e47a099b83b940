import {
  CompactPolicyPreviewLog,
  PolicyPreviewLogBatch,
  compactPolicyPreviewLogSubject,
  expandCompactPolicyPreviewLog,
  policyPreviewLogSubject,
} from '@rollout/contracts';
import { policyLogKeys, previewRecordId } from '@rollout/domain/preview';
import { PreviewStateService } from '../state/preview-state.service';
import { eventually } from '@rollout/testing/kit';
import { inForce } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE, exampleEvents } from '../../test/example-policies';
import { streamPayloads, streamRecords } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

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

describe("the policy's log", () => {
  const COMPACT = compactPolicyPreviewLogSubject('acme', 'global', 'web');
  const JSON_LOG = policyPreviewLogSubject('acme', 'global', 'web');
  /** The policy's compact log as PolicyPreviewLogBatches, one per message. */
  const compactLog = async () =>
    (await streamPayloads<CompactPolicyPreviewLog>(system.nc, system.iso, COMPACT)).map(
      expandCompactPolicyPreviewLog,
    );

  it("is compact by default: one row per event with both ACTIVE experiments' verdicts, and no PolicyPreviewLogBatch", async () => {
    const { nc, iso, world, app } = system;
    const ids = new Set(events.map((e) => e.id));
    const batches = await eventually(
      async () => {
        const logged = (await compactLog()).filter((b) =>
          b.events.some((e) => ids.has(e.trafficEventId)),
        );
        const count = logged.flatMap((b) => b.events).filter((e) => ids.has(e.trafficEventId));
        return count.length >= events.length ? logged : undefined;
      },
      { what: 'the compact log of every event' },
    );
    const view = app.get(PreviewStateService).state.viewOf(world.policyName('web'))!;
    const experiments = [
      { experiment: world.experimentName('web', 'block'), experimentEtag: etags.block },
      { experiment: world.experimentName('web', 'noop'), experimentEtag: etags.noop },
    ];
    for (const batch of batches) {
      expect(batch.firewallPolicy).toBe(world.policyName('web'));
      expect(batch.livePolicyEtag).toBe(liveEtag);
      expect(batch.experiments).toEqual(
        view.active.map((t) => experiments.find((e) => e.experiment === t.name)),
      );
    }
    const records = batches.flatMap((b) => b.events).filter((e) => ids.has(e.trafficEventId));
    expect(records.map((r) => r.trafficEventId).sort()).toEqual([...ids].sort());
    const first = records.find((r) => r.trafficEventId === events[0].id)!;
    const byName = (name: string) =>
      first.experimentResults[batches[0].experiments.findIndex((e) => e.experiment === name)];
    expect(first).toMatchObject({
      id: `${policyLogKeys(view).idPrefix}.${events[0].id}`,
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
    });
    expect(byName(world.experimentName('web', 'block'))).toEqual({
      action: 'deny',
      rulePriority: 50,
      implied: false,
      changed: true,
    });
    // The no-op experiment previews deleting the policy: the implied INGRESS deny.
    expect(byName(world.experimentName('web', 'noop'))).toEqual({
      action: 'deny',
      rulePriority: null,
      implied: true,
      changed: true,
    });
    expect(await streamPayloads(nc, iso, JSON_LOG)).toEqual([]);
  });

  it('is also published as PolicyPreviewLogBatch with PREVIEW_LOGS_POLICY_JSON, the same records as the compact log', async () => {
    const { nc, iso, world } = system;
    const app = await system.start({ PREVIEW_LOGS_POLICY_JSON: 'true' });
    await inForce(app, world, 'web', (view) => view.etag === liveEtag && view.active.length === 2);
    const more = [trafficEvent(20, { srcIp: '10.0.1.9' }), trafficEvent(21, { destPort: 443 })];
    const seq = await publishTraffic(nc, iso, 'web', more);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'events settled' });
    const ids = new Set(more.map((e) => e.id));
    const of = (batches: PolicyPreviewLogBatch[]) =>
      batches
        .flatMap((b) => b.events.map((e) => ({ ...e, experiments: b.experiments })))
        .filter((e) => ids.has(e.trafficEventId))
        .sort((a, b) => a.trafficEventId.localeCompare(b.trafficEventId));
    const json = of(await streamPayloads<PolicyPreviewLogBatch>(nc, iso, JSON_LOG));
    expect(json.map((e) => e.trafficEventId)).toEqual([...ids].sort());
    expect(of(await compactLog())).toEqual(json);
  });
});
