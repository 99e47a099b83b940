import { FirewallRule } from '@rollout/contracts';
import { TEST_POSTGRES_URL, eventually } from '@rollout/testing/kit';
import { Client } from 'pg';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { allFlows, tableRows } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';
import { PreviewRetention } from '../retention/preview-retention.job';

/**
 * What the preview store keeps: it grows with the distinct flows, not with the traffic; a
 * set of experiments ACTIVE together keeps at most EVALUATOR_MAX_FLOWS flows; and retention removes what is past
 * PREVIEW_RETENTION_MS. Housekeeping is run by the test (its own loop waits an hour here).
 */
const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
/** Denies SSH from 10.0.0.0/16: every flow below changes, allow → deny. */
const BLOCK: FirewallRule[] = [
  {
    priority: 10,
    direction: 'INGRESS',
    action: 'deny',
    match: { srcIpRanges: ['10.0.0.0/16'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
  },
  ...LIVE,
];

/** Flow f: 10.0.{f/250}.{f%250} → 192.0.2.10:22 (changed), or to port 80 for odd f (unchanged). */
const flowEvent = (f: number, n: number) =>
  trafficEvent(n, { srcIp: `10.0.${Math.floor(f / 250)}.${f % 250}`, destPort: f % 2 ? 80 : 22 });

describe('preview storage', () => {
  const system = evaluatorSystem({
    eachTest: true,
    env: { PREVIEW_HOUSEKEEPING_INTERVAL_MS: '3600000' },
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'block', BLOCK, 'ACTIVE');
      await world.experiment('web', 'noop', [], 'ACTIVE');
    },
  });

  const report = (experiment: string) =>
    previewReport(system.rpc, system.world, experiment, 'web', 10_000);
  const housekeeping = () => system.app.get(PreviewRetention).housekeeping();

  it('stops growing once the flows repeat: the same 1,000 flows ten times over add no row to any table', async () => {
    const { nc, iso, world, rpc } = system;
    await system.start();
    const rows: Record<string, number>[] = [];
    let n = 0;
    for (let round = 0; round < 10; round++) {
      const seq = await publishTraffic(
        nc,
        iso,
        'web',
        Array.from({ length: 1000 }, (_, f) => flowEvent(f, n++)),
      );
      await eventually(() => settledUpTo(nc, iso, seq), {
        timeoutMs: 30_000,
        what: `round ${round} settled`,
      });
      await housekeeping();
      rows.push(await tableRows(iso));
    }
    // Every round after the first finds the same rows in every table: nothing grows with the traffic.
    // Time buckets grow with the time the events span, not their number: a minute each here
    // (events a second apart, 167 minutes in all, per configuration), an hour each after
    // PREVIEW_MINUTE_BUCKETS_HOURS, none past the retention period.
    const withoutBuckets = ({ preview_time_buckets: _, ...others }: Record<string, number>) =>
      others;
    for (const later of rows.slice(1))
      expect(withoutBuckets(later)).toEqual(withoutBuckets(rows[0]));
    expect(rows.at(-1)?.preview_time_buckets).toBe(2 * Math.ceil(10_000 / 60));
    // One flow row per connection whichever of the two experiments change it: 1,000, not 500 + 1,000.
    expect(rows[0]).toMatchObject({
      preview_outcome_flows: 1000,
      preview_counted: 1,
      preview_configurations: 2,
    });
    // block changes the 500 SSH flows, noop all 1,000 (every one was allowed); each flow counted exactly, ten times.
    const [block, noop] = [
      (await report('block')).configurations[0],
      (await report('noop')).configurations[0],
    ];
    expect(block).toMatchObject({
      evaluated: 10_000,
      changed: 5_000,
      flows: 500,
      changedOutsideFlows: 0,
    });
    expect(noop).toMatchObject({ evaluated: 10_000, changed: 10_000, flows: 1000 });
    const flows = await allFlows(rpc, world.experimentName('web', 'block'), {
      pageSize: 1000,
    });
    expect(flows).toHaveLength(500);
    expect(flows.every((f) => f.count === 10 && f.samples.length === 5)).toBe(true);
  }, 120_000);

  it('keeps at most EVALUATOR_MAX_FLOWS flows per set of experiments ACTIVE together, counting the changed events of others outside them', async () => {
    const { nc, iso, world, rpc } = system;
    await system.start({ EVALUATOR_MAX_FLOWS: '40' });
    // 30 flows first, then 100 more (30 of them again) in one go: 10 more fit.
    let seq = await publishTraffic(
      nc,
      iso,
      'web',
      Array.from({ length: 30 }, (_, i) => flowEvent(2 * i, i)),
    );
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'first flows settled' });
    seq = await publishTraffic(
      nc,
      iso,
      'web',
      Array.from({ length: 100 }, (_, i) => flowEvent(2 * i, 100 + i)),
    );
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'more flows settled' });
    const block = (await report('block')).configurations[0];
    expect(block).toMatchObject({
      evaluated: 130,
      changed: 130,
      flows: 40,
      changedOutsideFlows: 60,
    });
    const flows = await allFlows(rpc, world.experimentName('web', 'block'));
    expect(flows).toHaveLength(40);
    expect(flows.reduce((sum, f) => sum + f.count, 0) + block.changedOutsideFlows!).toBe(
      block.changed,
    );
  }, 60_000);

  it('removes a configuration whose last traffic is past retention, with its flows and rule counts, in short deletes', async () => {
    const { nc, iso, world } = system;
    await system.start({ PREVIEW_RETENTION_MS: String(3600_000) });
    let n = 0;
    let seq = await publishTraffic(
      nc,
      iso,
      'web',
      Array.from({ length: 12_000 }, (_, f) => flowEvent(2 * (f % 6000), n++)),
    );
    await eventually(() => settledUpTo(nc, iso, seq), { timeoutMs: 30_000, what: 'settled' });
    // The experiment is updated and previewed again: its old configuration gets no more traffic.
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    await eventually(
      async () => ((await report('block')).configurations.length === 1 ? true : undefined),
      { what: 'one configuration' },
    );
    seq = await publishTraffic(
      nc,
      iso,
      'web',
      Array.from({ length: 10 }, (_, f) => flowEvent(2 * f, n++)),
    );
    await eventually(
      async () =>
        (await settledUpTo(nc, iso, seq)) && (await report('block')).configurations.length === 2
          ? true
          : undefined,
      { what: 'second configuration' },
    );

    // Within retention nothing goes.
    await housekeeping();
    expect((await report('block')).configurations).toHaveLength(2);
    // Two hours later (the old configuration's last traffic backdated), it goes, and only it.
    const pg = new Client({ connectionString: TEST_POSTGRES_URL });
    await pg.connect();
    try {
      const [old] = (
        await pg.query(
          `SELECT min(id) AS id FROM "${iso.schema}".preview_configurations WHERE experiment = $1`,
          [world.experimentName('web', 'block')],
        )
      ).rows;
      await pg.query(
        `UPDATE "${iso.schema}".preview_configurations SET updated_at = now() - interval '2 hours' WHERE id = $1`,
        [old.id],
      );
      await housekeeping();
      const remaining = await report('block');
      expect(remaining.configurations.map((c) => [c.evaluated, c.flows])).toEqual([[10, 10]]);
      // Its flows are shared with noop, whose cohort it was in: they stay with noop, and no
      // flow is left in a cohort all of whose configurations are gone.
      const left = (
        await pg.query(
          `SELECT count(*) AS n FROM "${iso.schema}".preview_outcome_flows f
           JOIN "${iso.schema}".preview_cohorts c ON c.id = f.cohort_id
           WHERE NOT EXISTS (SELECT 1 FROM "${iso.schema}".preview_configurations p WHERE p.id = ANY (c.configuration_ids))`,
        )
      ).rows[0];
      expect(Number(left.n)).toBe(0);
      expect(
        Number(
          (
            await pg.query(
              `SELECT count(*) AS n FROM "${iso.schema}".preview_rule_counts WHERE configuration_id = $1`,
              [old.id],
            )
          ).rows[0].n,
        ),
      ).toBe(0);
    } finally {
      await pg.end();
    }
    // noop's configuration and traffic to it were untouched; new traffic to block still counts.
    expect((await report('noop')).configurations[0].evaluated).toBe(12_010);
    seq = await publishTraffic(nc, iso, 'web', [flowEvent(0, n++)]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'after retention' });
    expect((await report('block')).configurations.map((c) => c.evaluated)).toEqual([11]);
  }, 90_000);
});
