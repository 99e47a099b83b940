import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { inForce, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE } from '../../test/example-policies';

/** A second startPreview's start time (the experiment-service stamps each one). */
const T1 = '2025-06-02T00:00:00.000Z';

/** previewAppliedTime: when this evaluator first applied the experiment's startPreview. */
const system = evaluatorSystem({
  given: async ({ world }) => {
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK);
  },
  started: async ({ app, world }) => {
    await inForce(app, world, 'web', () => true);
  },
});

const report = () => previewReport(system.rpc, system.world, 'block');

it('is absent before startPreview, then the time it was applied, the same across reads and restarts, a new one for another startPreview', async () => {
  expect((await report()).previewAppliedTime).toBeUndefined();

  const started = Date.now();
  await system.world.experiment('web', 'block', BLOCK, 'ACTIVE');
  const applied = await eventually(async () => (await report()).previewAppliedTime, {
    what: 'previewAppliedTime',
  });
  expect(Date.parse(applied)).toBeGreaterThanOrEqual(started);
  expect((await report()).previewAppliedTime).toBe(applied);

  // A restart applies the same ACTIVE state again: the first time stays.
  await system.start();
  await inForce(system.app, system.world, 'web', (view) => view.active.length === 1);
  expect((await report()).previewAppliedTime).toBe(applied);

  // stopPreview keeps it; another startPreview (a new start time) is another preview.
  await system.world.experiment('web', 'block', BLOCK, 'SUSPENDED');
  await inForce(system.app, system.world, 'web', (view) => view.active.length === 0);
  expect((await report()).previewAppliedTime).toBe(applied);
  const restarted = Date.now();
  await system.world.experiment('web', 'block', BLOCK, 'ACTIVE', undefined, undefined, T1);
  const again = await eventually(
    async () => {
      const time = (await report()).previewAppliedTime;
      return time !== applied ? time : undefined;
    },
    { what: 'the new preview applied' },
  );
  expect(Date.parse(again as string)).toBeGreaterThanOrEqual(restarted);
}, 60_000);
