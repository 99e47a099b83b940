import { FirewallRule, PreviewVerdict } from '@rollout/contracts';
import { TEST_POSTGRES_URL, eventually } from '@rollout/testing/kit';
import { Client } from 'pg';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
): FirewallRule => ({ priority, direction: 'INGRESS', action, match });
const LIVE = [
  rule(100, 'allow', {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
  }),
  rule(200, 'deny', { srcIpRanges: ['0.0.0.0/0'] }),
];
const BLOCK = [
  rule(50, 'deny', {
    srcIpRanges: ['10.0.1.0/24'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  ...LIVE,
];

const T0 = Date.parse('2025-06-01T00:00:00Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();
const verdict = (rulePriority: number, action: 'allow' | 'deny'): PreviewVerdict => ({
  action,
  rulePriority,
  implied: false,
});

/** What the report adds for an operator: which rule takes which traffic over, and when. */
describe('the preview report: rule transitions and time buckets', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    },
  });

  const report = () => previewReport(system.rpc, system.world, 'block');

  it('counts events by (live rule → experiment rule) and by time, minute buckets rolled into hours and bounded by retention', async () => {
    let n = 0;
    const ssh = (time: number) =>
      trafficEvent(n++, { srcIp: `10.0.1.${n}`, destPort: 22, time: at(time) });
    const https = (time: number) =>
      trafficEvent(n++, { srcIp: `10.0.2.${n}`, destPort: 443, time: at(time) });
    const other = (time: number) =>
      trafficEvent(n++, { srcIp: '192.0.2.1', destPort: 80, time: at(time) });
    const events = [
      // Nine days before the rest: counted, but its bucket is past the 7-day retention.
      other(T0 - 216 * HOUR),
      ssh(T0),
      ssh(T0 + 1_000),
      ssh(T0 + 2_000),
      https(T0 + 3_000),
      https(T0 + 4_000),
      other(T0 + 5_000),
      // Eight hours later: the first hour's minutes are now rolled into an hour bucket.
      ssh(T0 + 8 * HOUR),
      ssh(T0 + 8 * HOUR + 30_000),
      https(T0 + 8 * HOUR + 61_000),
    ];
    const seq = await publishTraffic(system.nc, system.iso, 'web', events);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });

    const configuration = await eventually(
      async () => {
        const [found] = (await report()).configurations;
        return found?.timeBuckets?.every((b) => b.width === 'MINUTE' || b.startTime === at(T0)) &&
          found.timeBuckets.length === 3
          ? found
          : undefined;
      },
      { timeoutMs: 15_000, what: 'housekeeping rolling the buckets up' },
    );

    expect(configuration).toMatchObject({
      evaluated: 10,
      changed: 5,
      allowToDeny: 5,
      unchangedAllow: 3,
      unchangedDeny: 2,
    });
    expect(configuration.ruleTransitions).toEqual([
      { live: verdict(100, 'allow'), experiment: verdict(50, 'deny'), count: 5 },
      { live: verdict(100, 'allow'), experiment: verdict(100, 'allow'), count: 3 },
      { live: verdict(200, 'deny'), experiment: verdict(200, 'deny'), count: 2 },
    ]);
    expect(configuration.ruleTransitionsOmitted).toBe(0);
    expect(configuration.timeBuckets).toEqual([
      {
        startTime: at(T0),
        width: 'HOUR',
        evaluated: 6,
        changed: 3,
        allowToDeny: 3,
        denyToAllow: 0,
      },
      {
        startTime: at(T0 + 8 * HOUR),
        width: 'MINUTE',
        evaluated: 2,
        changed: 2,
        allowToDeny: 2,
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
    // The rule counts are the matrix's margins.
    expect(configuration.liveRules).toEqual([
      { rulePriority: 100, implied: false, action: 'allow', count: 8 },
      { rulePriority: 200, implied: false, action: 'deny', count: 2 },
    ]);
    expect(configuration.experimentRules).toEqual([
      { rulePriority: 50, implied: false, action: 'deny', count: 5 },
      { rulePriority: 100, implied: false, action: 'allow', count: 3 },
      { rulePriority: 200, implied: false, action: 'deny', count: 2 },
    ]);
  });

  it('adds the rule counts a store kept before the matrix existed to its margins', async () => {
    const db = new Client({ connectionString: TEST_POSTGRES_URL });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO "${system.iso.schema}".preview_rule_counts (configuration_id, side, priority, action, count)
         SELECT id, 0, 100, 'allow', 7 FROM "${system.iso.schema}".preview_configurations`,
      );
    } finally {
      await db.end();
    }
    const [configuration] = (await report()).configurations;
    expect(configuration.liveRules[0]).toEqual({
      rulePriority: 100,
      implied: false,
      action: 'allow',
      count: 15,
    });
  });
});
