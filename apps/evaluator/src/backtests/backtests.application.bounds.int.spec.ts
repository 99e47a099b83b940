import { FirewallRule, TRAFFIC_STREAM } from '@rollout/contracts';
import { TEST_POSTGRES_URL, eventually } from '@rollout/testing/kit';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { EvaluatorSystem, evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, trafficEvent } from '../../test/traffic-publishing';
import { backtestOperation, finished, startBacktest } from '../../test/backtest-world';

const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const BLOCK: FirewallRule[] = [
  { priority: 50, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...LIVE,
];

/** What bounds a backtest: what TRAFFIC still retains, and the life of the process running it. */
describe('backtest bounds', () => {
  const given = async ({ world }: EvaluatorSystem) => {
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'SUSPENDED');
  };

  describe('on a TRAFFIC with a max age', () => {
    const system = evaluatorSystem({ given, env: { TRAFFIC_MAX_AGE_MS: '2000' } });

    it('replays what is left and says that older traffic is gone; its consumer is deleted after', async () => {
      const { nc, iso, world: experiments } = system;
      const jsm = await nc.jetstreamManager();
      const stream = iso.ns.stream(TRAFFIC_STREAM);
      await publishTraffic(nc, iso, 'web', [
        trafficEvent(1, { srcIp: '10.0.1.1' }),
        trafficEvent(2),
        trafficEvent(3),
      ]);
      await eventually(
        async () => ((await jsm.streams.info(stream)).state.messages === 0 ? true : undefined),
        { timeoutMs: 10_000, what: 'TRAFFIC expiring its first messages' },
      );
      await publishTraffic(nc, iso, 'web', [
        trafficEvent(4, { srcIp: '10.0.1.4' }),
        trafficEvent(5, { srcIp: '10.0.1.5' }),
      ]);
      const retainedStartTime = (
        await jsm.streams.getMessage(stream, { seq: 4 })
      ).time.toISOString();

      const started = await eventually(
        () => startBacktest(nc, iso, { name: experiments.experimentName('web', 'block') }),
        { what: 'the snapshot loaded' },
      );
      const { response } = await finished(nc, iso, started.name);

      expect(response!.report.configurations[0]).toMatchObject({
        evaluated: 2,
        changed: 2,
        allowToDeny: 2,
      });
      expect(response!.window).toMatchObject({
        retainedStartSequence: 4,
        lastSequence: 5,
        messagesReplayed: 2,
        startsBeforeRetention: true,
        retainedStartTime,
      });
      expect(response!.window.summary).toContain(
        `TRAFFIC retains messages only from its oldest (${retainedStartTime}, sequence 4): older traffic, removed by its age or size limits, is not in this backtest.`,
      );
      expect((await jsm.consumers.list(stream).next()).map((c) => c.name)).toEqual(['evaluator']);
    });
  });

  describe('when the evaluator running it stops', () => {
    const system = evaluatorSystem({
      given,
      // One message a batch, 200 ms apart: a backtest of 30 messages runs for about 6 s.
      env: { BACKTEST_BATCH_SIZE: '1', BACKTEST_PAUSE_MS: '200', BACKTEST_STALE_MS: '1500' },
    });

    it('fails its running and queued backtests (ABORTED), never leaving them running; a new process answers them so', async () => {
      const { nc, iso, world: experiments } = system;
      await publishTraffic(
        nc,
        iso,
        'web',
        Array.from({ length: 30 }, (_, i) => trafficEvent(i, { srcIp: '10.0.1.1' })),
      );
      const name = experiments.experimentName('web', 'block');
      const running = await eventually(() => startBacktest(nc, iso, { name }), {
        what: 'the snapshot loaded',
      });
      const queued = await startBacktest(nc, iso, { name });
      await eventually(
        async () =>
          (await backtestOperation(nc, iso, running.name)).metadata.eventsReplayed >= 2
            ? true
            : undefined,
        { what: 'the backtest under way' },
      );

      await system.start();

      for (const operation of [running, queued]) {
        const after = await backtestOperation(nc, iso, operation.name);
        expect(after).toMatchObject({
          done: true,
          error: {
            status: 'ABORTED',
            message:
              'The evaluator running this backtest stopped before it finished; start the backtest again.',
          },
        });
        expect(after.response).toBeUndefined();
      }
    });

    it('fails a backtest whose process died (its heartbeat stopped) at the next look', async () => {
      const { nc, iso } = system;
      const id = randomUUID();
      const pg = new Client({ connectionString: TEST_POSTGRES_URL });
      await pg.connect();
      try {
        await pg.query(
          `INSERT INTO "${iso.schema}".preview_backtests (id, experiment, runner, update_time) VALUES ($1, 'projects/acme/locations/global/firewallPolicies/web/experiments/block', 'gone', now() - interval '1 minute')`,
          [id],
        );
      } finally {
        await pg.end();
      }
      expect(await backtestOperation(nc, iso, `operations/backtest-${id}`)).toMatchObject({
        done: true,
        error: {
          status: 'ABORTED',
          details: [expect.objectContaining({ reason: 'BACKTEST_RUNNER_STOPPED' })],
        },
      });
    });
  });
});
