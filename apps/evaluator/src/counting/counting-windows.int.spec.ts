import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { metric, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE, exampleEvents } from '../../test/example-policies';
import { publishTraffic, settledUpTo } from '../../test/traffic-publishing';

const system = evaluatorSystem({
  given: async ({ world }) => {
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  },
  eachTest: true,
});

describe('counting windows', () => {
  it('given a backlog, when it is drained in small batches, then several batches share each transaction and every total is exact', async () => {
    // A first start provisions the streams; the backlog then waits for the second.
    await system.start();
    await system.stop();
    const rounds = 40;
    let last = 0;
    for (let i = 0; i < rounds; i++)
      last = await publishTraffic(system.nc, system.iso, 'web', exampleEvents());

    const app = await system.start({
      EVALUATOR_BATCH_SIZE: '10',
      EVALUATOR_CONCURRENCY: '8',
      EVALUATOR_WINDOW_MS: '1000',
    });
    await eventually(() => settledUpTo(system.nc, system.iso, last), { what: 'backlog settled' });

    const batches = await metric(app, 'evaluator_counting_batches_total');
    const windows = await metric(app, 'evaluator_counting_windows_total');
    expect(batches).toBeGreaterThanOrEqual((rounds * 5) / 10);
    expect(windows).toBeLessThan(batches);
    expect(await metric(app, 'evaluator_counting_rows_total')).toBeGreaterThan(0);
    const [configuration] = (await previewReport(system.rpc, system.world, 'block')).configurations;
    expect(configuration).toMatchObject({
      evaluated: rounds * 5,
      changed: rounds,
      allowToDeny: rounds,
      unchangedAllow: rounds * 3,
      unchangedDeny: rounds,
    });
  });
});
