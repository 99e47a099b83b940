import {
  ListPreviewFlowsResponse,
  ListPreviewLogsResponse,
  PREVIEW_SUBJECTS,
  PreviewLogRecord,
  StatusError,
} from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { inForce as inForceOf, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE, exampleEvents, rule } from '../../test/example-policies';
import { allFlows, streamRecords } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/** previewFlows and the deprecated previewLogs over two configurations of one experiment. */

const logs = (
  experiment: string,
  query: { changedOnly?: boolean; pageSize?: number; pageToken?: string } = {},
) =>
  system.rpc.request<ListPreviewLogsResponse>(
    PREVIEW_SUBJECTS.previewLogs,
    { name: system.world.experimentName('web', experiment), ...query },
    { timeoutMs: 5_000 },
  );
const report = (experiment: string) => previewReport(system.rpc, system.world, experiment);
const inForce: (policy: string, ready: Parameters<typeof inForceOf>[3]) => Promise<unknown> = (
  policy,
  ready,
) => inForceOf(system.app, system.world, policy, ready);

/** The live policy's etag the evaluator starts on. */
let liveEtag = '';
const system = evaluatorSystem({
  given: async ({ world }) => {
    // An older configuration with changed flows of its own.
    liveEtag = await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  },
  started: async ({ iso, nc }) => {
    await inForce('web', (view) => view.etag === liveEtag && view.active.length === 1);
    const seq = await publishTraffic(nc, iso, 'web', [
      ...exampleEvents(),
      trafficEvent(20, { srcIp: '10.0.1.20' }),
    ]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'older configuration counted' });
  },
});

describe('listing changed flows', () => {
  it('lists flows newest configuration first, filtered and paged, and the deprecated previewLogs as their samples', async () => {
    // A new live policy version starts a new configuration.
    const newLive = await system.world.policy('web', [
      rule(300, 'deny', { srcIpRanges: ['0.0.0.0/0'] }),
    ]);
    await inForce('web', (view) => view.etag === newLive);
    const fresh = Array.from({ length: 30 }, (_, i) =>
      trafficEvent(70 + i, {
        srcIp: `10.0.${i % 3 === 0 ? 1 : 2}.${70 + (i % 5)}`,
        destPort: i % 2 ? 22 : 443,
      }),
    );
    const seq = await publishTraffic(system.nc, system.iso, 'web', fresh);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const parent = system.world.experimentName('web', 'block');

    const everything = await allFlows(system.rpc, parent, { pageSize: 1000 });
    const paged = await allFlows(system.rpc, parent, { pageSize: 3 });
    expect(paged).toEqual(everything);
    // Newest configuration first, and in each the flow seen last first.
    const firstOld = paged.findIndex((f) => f.livePolicyEtag !== newLive);
    expect(firstOld).toBeGreaterThan(0);
    expect(paged.slice(firstOld).every((f) => f.livePolicyEtag !== newLive)).toBe(true);
    const newest = paged.slice(0, firstOld);
    expect(newest.map((f) => f.lastEventTime)).toEqual(
      [...newest.map((f) => f.lastEventTime)].sort().reverse(),
    );
    // Under the new live policy (deny everything) the experiment's allow rule 100 opens SSH and HTTPS, but SSH from 10.0.1/24.
    const opened = newest.filter((f) => f.transition === 'DENY_TO_ALLOW');
    expect(opened.reduce((sum, f) => sum + f.count, 0)).toBe(
      fresh.filter((e) => !(e.srcIp.startsWith('10.0.1.') && e.destPort === 22)).length,
    );

    const filtered = async (filter: string) =>
      allFlows(system.rpc, parent, { filter, pageSize: 2 });
    expect(await filtered(`transition = DENY_TO_ALLOW AND livePolicyEtag = "${newLive}"`)).toEqual(
      opened,
    );
    expect(
      (await filtered('ip = 10.0.2.0/24 AND destPort = 22')).every(
        (f) => f.srcIp.startsWith('10.0.2.') && f.destPort === 22,
      ),
    ).toBe(true);
    expect((await filtered('ip = 10.0.2.0/24 AND destPort = 22')).length).toBeGreaterThan(0);
    expect(await filtered('srcIp = 198.51.100.0/24')).toEqual([]);
    expect((await filtered('experimentRule = 100 AND liveRule = 300')).map((f) => f.srcIp)).toEqual(
      opened.map((f) => f.srcIp),
    );
    expect((await filtered('destPort != 22')).every((f) => f.destPort !== 22)).toBe(true);

    // previewLogs (deprecated): every sample of every flow, as the record that was logged.
    const records: PreviewLogRecord[] = [];
    let pageToken: string | undefined;
    do {
      const page = await logs('block', { pageSize: 4, pageToken });
      records.push(...page.previewLogs);
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(records.map((r) => r.trafficEventId)).toEqual(
      everything.flatMap((f) => f.samples.map((s) => s.trafficEventId)),
    );
    expect(records.every((r) => r.changed)).toBe(true);
    const logged = new Map(
      (await streamRecords(system.nc, system.iso, 'preview.v1.logs.acme.global.web.block')).map(
        (r) => [r.id, r],
      ),
    );
    for (const record of records) {
      const { connection, ...rest } = logged.get(record.id) as PreviewLogRecord;
      expect(record).toEqual({
        ...rest,
        connection: {
          ...connection,
          protocol: connection.protocol === 6 ? 'tcp' : connection.protocol,
        },
      });
    }
  });

  it('refuses a bad filter, a bad page token and a malformed name; an experiment with nothing has an empty report and no flows', async () => {
    const parent = system.world.experimentName('web', 'block');
    const page = await system.rpc.request<ListPreviewFlowsResponse>(
      PREVIEW_SUBJECTS.previewFlows,
      { parent, pageSize: 1 },
      { timeoutMs: 5_000 },
    );
    const error = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: StatusError) => [e.status, e.message],
      );
    const flows = (query: Record<string, unknown>) =>
      system.rpc.request(PREVIEW_SUBJECTS.previewFlows, { parent, ...query }, { timeoutMs: 5_000 });
    expect(await error(flows({ filter: 'destPort = 70000' }))).toEqual([
      'INVALID_ARGUMENT',
      'The filter is not valid: destPort must be a port 0-65535, not "70000".',
    ]);
    expect(await error(flows({ pageToken: 'forged' }))).toEqual([
      'INVALID_ARGUMENT',
      'The page token is not one this query issued.',
    ]);
    expect(
      (await error(flows({ pageToken: page.nextPageToken, filter: 'destPort = 22' })))?.[0],
    ).toBe('INVALID_ARGUMENT');
    expect((await error(logs('block', { pageToken: page.nextPageToken })))?.[0]).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      (
        await error(
          system.rpc.request(
            PREVIEW_SUBJECTS.previewReport,
            { name: 'projects/acme' },
            { timeoutMs: 5_000 },
          ),
        )
      )?.[0],
    ).toBe('INVALID_ARGUMENT');
    expect(
      (
        await error(
          system.rpc.request(
            PREVIEW_SUBJECTS.previewFlows,
            { parent: 'projects/acme' },
            { timeoutMs: 5_000 },
          ),
        )
      )?.[0],
    ).toBe('INVALID_ARGUMENT');
    // No readiness for an experiment the evaluator does not hold.
    expect(await report('missing')).toEqual({
      name: system.world.experimentName('web', 'missing'),
      configurations: [],
      reportEtag: expect.stringMatching(/^[\w-]{16}\.[\w-]{16}$/),
    });
    expect(await logs('missing')).toEqual({ previewLogs: [] });
    expect(await flows({ parent: system.world.experimentName('web', 'missing') })).toEqual({
      previewFlows: [],
    });
  });
});
