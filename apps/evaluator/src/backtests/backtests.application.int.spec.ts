import { PreviewVerdict, TRAFFIC_STREAM } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { tableRows } from '../../test/readouts';
import {
  publishTraffic,
  publishTrafficBatches,
  settledUpTo,
  trafficEvent,
} from '../../test/traffic-publishing';
import { finished, startBacktest } from '../../test/backtest-world';
import { BLOCK, LIVE } from '../../test/example-policies';

const verdict = (rulePriority: number, action: 'allow' | 'deny'): PreviewVerdict => ({
  action,
  rulePriority,
  implied: false,
});

/** Eight events of `web` in one minute: four ssh from 10.0.1.0/24 (blocked by BLOCK), three allowed, one denied by both. */
function knownTraffic(first: number) {
  let n = first;
  const ssh = (srcIp: string) => trafficEvent(n++, { srcIp, destPort: 22 });
  const https = (srcIp: string) => trafficEvent(n++, { srcIp, destPort: 443 });
  return {
    v1: [
      ssh('10.0.1.1'),
      ssh('10.0.1.1'),
      ssh('10.0.1.2'),
      https('10.0.2.1'),
      https('10.0.2.2'),
      trafficEvent(n++, { srcIp: '192.0.2.1', destPort: 80 }),
    ],
    v2alpha: [ssh('10.0.1.1'), https('10.0.2.9')],
  };
}

describe('backtests: an experiment replayed over the traffic TRAFFIC retains', () => {
  let lastOfFirstSet: number;
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.policy('other', LIVE);
      // `draft` was never started: the live path counts nothing for it. `watch` is ACTIVE with the same rules.
      await world.experiment('web', 'draft', BLOCK);
      await world.experiment('web', 'watch', BLOCK, 'ACTIVE');
    },
    started: async ({ nc, iso }) => {
      const { v1, v2alpha } = knownTraffic(0);
      await publishTraffic(nc, iso, 'web', v1);
      await publishTrafficBatches(nc, iso, 'web', v2alpha);
      await publishTraffic(nc, iso, 'web', ['{not json']);
      lastOfFirstSet = await publishTraffic(nc, iso, 'other', [
        trafficEvent(7, { srcIp: '10.0.1.1' }),
      ]);
      await eventually(() => settledUpTo(nc, iso, lastOfFirstSet), { what: 'settled' });
      // Housekeeping folds the counted ranges into one soon after: wait for it, so that the live
      // tables hold still while the tests compare them around a backtest.
      await eventually(
        async () => ((await tableRows(iso)).preview_counted === 1 ? true : undefined),
        { what: 'counted ranges folded into one' },
      );
    },
  });

  const liveReport = (experiment: string) => previewReport(system.rpc, system.world, experiment);

  it('counts exactly what the live path would, into a report of its own, leaving the live counts as they were', async () => {
    const { nc, iso, world } = system;
    const before = {
      rows: await tableRows(iso),
      draft: await liveReport('draft'),
      watch: await liveReport('watch'),
    };

    const started = await startBacktest(nc, iso, { name: world.experimentName('web', 'draft') });
    expect(started).toMatchObject({
      name: expect.stringMatching(/^operations\/backtest-/),
      done: false,
      metadata: { verb: 'backtest', target: world.experimentName('web', 'draft') },
    });
    const { response, metadata } = await finished(nc, iso, started.name);

    expect(metadata).toMatchObject({
      messagesReplayed: 8,
      eventsReplayed: 8,
      endTime: expect.any(String),
    });
    const [configuration] = response!.report.configurations;
    expect(configuration).toMatchObject({
      experimentEtag: 'draft-E1',
      livePolicyEtag: 'web-L1',
      evaluated: 8,
      changed: 4,
      allowToDeny: 4,
      denyToAllow: 0,
      unchangedAllow: 3,
      unchangedDeny: 1,
      flows: 2,
      changedOutsideFlows: 0,
    });
    expect(configuration.ruleTransitions).toEqual([
      { live: verdict(100, 'allow'), experiment: verdict(50, 'deny'), count: 4 },
      { live: verdict(100, 'allow'), experiment: verdict(100, 'allow'), count: 3 },
      { live: verdict(200, 'deny'), experiment: verdict(200, 'deny'), count: 1 },
    ]);
    expect(configuration.topChangedSources).toEqual([
      { srcIp: '10.0.1.1', count: 3 },
      { srcIp: '10.0.1.2', count: 1 },
    ]);
    expect(configuration.timeBuckets).toEqual([
      {
        startTime: '2025-06-01T00:00:00.000Z',
        width: 'MINUTE',
        evaluated: 8,
        changed: 4,
        allowToDeny: 4,
        denyToAllow: 0,
      },
    ]);
    expect(configuration.coverage).toMatchObject({
      complete: true,
      untouchedRegions: [],
      unmatchedExperimentRules: [],
      exact: true,
    });
    expect(
      response!.topChangedFlows.map((f) => [f.srcIp, f.destPort, f.count, f.samples.length]),
    ).toEqual([
      ['10.0.1.1', 22, 3, 3],
      ['10.0.1.2', 22, 1, 1],
    ]);
    expect(response!.window).toMatchObject({
      retainedStartSequence: 1,
      messagesReplayed: 8,
      eventsReplayed: 8,
      skipped: [{ reason: 'bad_json', messages: 1 }],
      skippedMessages: 1,
      startsBeforeRetention: false,
    });
    expect(response!.window.summary).toMatch(
      /^Replayed 8 messages \(8 events\) TRAFFIC stored from .* 1 message could not be decoded or evaluated and is not counted \(bad_json 1\)\.$/,
    );

    // The live report of the ACTIVE twin counted the same traffic: the same numbers, by the same code.
    const [live] = before.watch.configurations;
    for (const field of [
      'evaluated',
      'changed',
      'allowToDeny',
      'unchangedAllow',
      'unchangedDeny',
      'liveRules',
      'experimentRules',
      'ruleTransitions',
      'topChangedSources',
      'topChangedDestinationPorts',
      'timeBuckets',
      'flows',
    ] as const) {
      expect([field, configuration[field]]).toEqual([field, live[field]]);
    }
    // Nothing of the live preview moved: no row of its tables, no count of either report.
    const { preview_backtests: backtests, ...rows } = await tableRows(iso);
    const { preview_backtests: none, ...rowsBefore } = before.rows;
    expect([none, backtests, rows]).toEqual([0, 1, rowsBefore]);
    expect(await liveReport('draft')).toEqual(before.draft);
    expect((await liveReport('watch')).configurations).toEqual(before.watch.configurations);
  });

  it('replays only the window asked for, by the time TRAFFIC stored each message, and says when it starts before what TRAFFIC retains', async () => {
    const { nc, iso, world } = system;
    const jsm = await nc.jetstreamManager();
    const storedAt = async (seq: number) =>
      (await jsm.streams.getMessage(iso.ns.stream(TRAFFIC_STREAM), { seq })).time.toISOString();
    const { v1 } = knownTraffic(20);
    const firstOfSecondSet = (await publishTraffic(nc, iso, 'web', v1.slice(0, 1))) as number;
    await publishTraffic(nc, iso, 'web', v1.slice(1, 3));
    const name = world.experimentName('web', 'draft');

    const later = await finished(
      nc,
      iso,
      (await startBacktest(nc, iso, { name, startTime: await storedAt(firstOfSecondSet) })).name,
    );
    expect(later.response!.report.configurations[0]).toMatchObject({ evaluated: 3, changed: 3 });
    expect(later.response!.window).toMatchObject({
      messagesReplayed: 3,
      skippedMessages: 0,
      startsBeforeRetention: false,
    });

    const earlier = await finished(
      nc,
      iso,
      (await startBacktest(nc, iso, { name, endTime: await storedAt(lastOfFirstSet) })).name,
    );
    expect(earlier.response!.report.configurations[0]).toMatchObject({ evaluated: 8, changed: 4 });

    const before = await finished(
      nc,
      iso,
      (await startBacktest(nc, iso, { name, startTime: '2000-01-01T00:00:00Z' })).name,
    );
    expect(before.response!.window).toMatchObject({
      requestedStartTime: '2000-01-01T00:00:00.000Z',
      retainedStartTime: await storedAt(1),
      retainedStartSequence: 1,
      messagesReplayed: 11,
      startsBeforeRetention: true,
    });
    expect(before.response!.window.summary).toContain(
      `The window asked for starts at 2000-01-01T00:00:00.000Z, before the oldest message TRAFFIC still retains (${await storedAt(1)}, sequence 1): earlier traffic is not in this backtest.`,
    );

    const empty = await finished(
      nc,
      iso,
      (await startBacktest(nc, iso, { name, startTime: '2999-01-01T00:00:00Z' })).name,
    );
    expect(empty.response!.report.configurations).toEqual([]);
    expect(empty.response!.window.summary).toBe(
      'TRAFFIC holds no message of this policy in the window asked for: nothing was replayed.',
    );
  });
});
