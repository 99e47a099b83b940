import { FirewallRule, PREVIEW_SUBJECTS, PreviewReport } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { finished, startBacktest } from '../../test/backtest-world';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const BLOCK: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...LIVE,
];

const T0 = Date.parse('2025-06-01T00:00:00Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

/** The time buckets as the report shows them, whether housekeeping has rolled the store's old minutes up or not. */
describe('the preview report: time buckets', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    },
    // No housekeeping round while the test runs: the store keeps every minute it counted.
    env: { PREVIEW_HOUSEKEEPING_INTERVAL_MS: String(HOUR) },
  });

  it('shows the minutes more than 6 hours before the last event as hours at once, as a backtest of the same traffic does', async () => {
    let n = 0;
    const event = (time: number, srcIp: string) =>
      trafficEvent(n++, { srcIp, destPort: 22, time: at(time) });
    const seq = await publishTraffic(system.nc, system.iso, 'web', [
      event(T0, '10.0.1.1'),
      event(T0 + 90_000, '10.0.2.1'),
      event(T0 + HOUR - 1_000, '10.0.2.2'),
      event(T0 + 8 * HOUR, '10.0.1.2'),
      event(T0 + 8 * HOUR + 61_000, '10.0.2.3'),
    ]);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });

    const name = system.world.experimentName('web', 'block');
    const [live] = (
      await system.rpc.request<PreviewReport>(
        PREVIEW_SUBJECTS.previewReport,
        { name },
        { timeoutMs: 5_000 },
      )
    ).configurations;
    expect(live.timeBuckets).toEqual([
      {
        startTime: at(T0),
        width: 'HOUR',
        evaluated: 3,
        changed: 1,
        allowToDeny: 1,
        denyToAllow: 0,
      },
      {
        startTime: at(T0 + 8 * HOUR),
        width: 'MINUTE',
        evaluated: 1,
        changed: 1,
        allowToDeny: 1,
        denyToAllow: 0,
      },
      {
        startTime: at(T0 + 8 * HOUR + 60_000),
        width: 'MINUTE',
        evaluated: 1,
        changed: 0,
        allowToDeny: 0,
        denyToAllow: 0,
      },
    ]);

    const backtest = await finished(
      system.nc,
      system.iso,
      (await startBacktest(system.nc, system.iso, { name })).name,
    );
    expect(backtest.response?.report.configurations[0].timeBuckets).toEqual(live.timeBuckets);
  });
});
