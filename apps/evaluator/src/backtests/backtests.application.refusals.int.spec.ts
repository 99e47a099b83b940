import { StatusError } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { backtestOperation, startBacktest } from '../../test/backtest-world';
import { evaluatorSystem } from '../../test/evaluator-system';
import { BLOCK, LIVE } from '../../test/example-policies';
import { PreviewStateService } from '../state/preview-state.service';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: StatusError) => [error.status, error.message],
  );

describe('backtests: what is refused', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      // `draft` was never started: the live path counts nothing for it.
      await world.experiment('web', 'draft', BLOCK);
    },
    started: async ({ app }) => {
      await eventually(() => (app.get(PreviewStateService).isLoaded ? true : undefined), {
        what: 'the snapshot loaded',
      });
    },
  });

  it('refuses an experiment it does not hold (never created, committed or deleted), a bad window and a bad name', async () => {
    const { app, nc, iso, world } = system;
    await world.experiment('web', 'gone', BLOCK);
    await world.endExperiment('web', 'gone');
    await eventually(
      () =>
        app.get(PreviewStateService).state.hasExperiment(world.experimentName('web', 'gone'))
          ? undefined
          : true,
      { what: 'the deletion applied' },
    );
    expect(
      await failure(startBacktest(nc, iso, { name: world.experimentName('web', 'gone') })),
    ).toEqual([
      'NOT_FOUND',
      `Experiment "${world.experimentName('web', 'gone')}" not found (a committed or deleted experiment has nothing to backtest).`,
    ]);
    expect(
      (await failure(startBacktest(nc, iso, { name: world.experimentName('web', 'never') })))?.[0],
    ).toBe('NOT_FOUND');
    const name = world.experimentName('web', 'draft');
    expect(
      await failure(
        startBacktest(nc, iso, {
          name,
          startTime: '2025-06-02T00:00:00Z',
          endTime: '2025-06-01T00:00:00Z',
        }),
      ),
    ).toEqual(['INVALID_ARGUMENT', 'endTime is before startTime.']);
    expect(await failure(startBacktest(nc, iso, { name, startTime: 'yesterday' }))).toEqual([
      'INVALID_ARGUMENT',
      'startTime is not an RFC 3339 time.',
    ]);
    expect((await failure(startBacktest(nc, iso, { name: 'projects/acme' })))?.[0]).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      await failure(
        backtestOperation(nc, iso, 'operations/backtest-00000000-0000-0000-0000-000000000000'),
      ),
    ).toEqual([
      'NOT_FOUND',
      'Operation "operations/backtest-00000000-0000-0000-0000-000000000000" not found.',
    ]);
  });
});
