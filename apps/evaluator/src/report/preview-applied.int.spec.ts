import type { INestApplication } from '@nestjs/common';
import { NatsRpcClient } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Isolation, cleanUp, isolation, rpcClient, startEvaluator } from '../../test/evaluator-app';
import { inForce, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE } from '../../test/example-policies';
import { ExperimentWorld } from '../../test/experiment-world';

/** A second startPreview's start time (the experiment-service stamps each one). */
const T1 = '2025-06-02T00:00:00.000Z';

/** previewAppliedTime: when this evaluator first applied the experiment's startPreview. */
let iso: Isolation;
let nc: NatsConnection;
let app: INestApplication | undefined;
let rpc: NatsRpcClient;
let world: ExperimentWorld;

const report = () => previewReport(rpc, world, 'block');

beforeAll(async () => {
  iso = isolation();
  nc = await connect({ servers: TEST_NATS_URL });
  rpc = rpcClient(nc, iso);
  world = new ExperimentWorld(nc, iso);
  await world.createBucket();
  await world.policy('web', LIVE);
  await world.experiment('web', 'block', BLOCK);
  app = await startEvaluator(iso);
  await inForce(app, world, 'web', () => true);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await nc?.close();
  if (iso) await cleanUp(iso);
});

it('is absent before startPreview, then the time it was applied, the same across reads and restarts, a new one for another startPreview', async () => {
  expect((await report()).previewAppliedTime).toBeUndefined();

  const started = Date.now();
  await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  const applied = await eventually(async () => (await report()).previewAppliedTime, {
    what: 'previewAppliedTime',
  });
  expect(Date.parse(applied)).toBeGreaterThanOrEqual(started);
  expect((await report()).previewAppliedTime).toBe(applied);

  // A restart applies the same ACTIVE state again: the first time stays.
  await app?.close();
  app = await startEvaluator(iso);
  await inForce(app, world, 'web', (view) => view.active.length === 1);
  expect((await report()).previewAppliedTime).toBe(applied);

  // stopPreview keeps it; another startPreview (a new start time) is another preview.
  await world.experiment('web', 'block', BLOCK, 'SUSPENDED');
  await inForce(app, world, 'web', (view) => view.active.length === 0);
  expect((await report()).previewAppliedTime).toBe(applied);
  const restarted = Date.now();
  await world.experiment('web', 'block', BLOCK, 'ACTIVE', undefined, undefined, T1);
  const again = await eventually(
    async () => {
      const time = (await report()).previewAppliedTime;
      return time !== applied ? time : undefined;
    },
    { what: 'the new preview applied' },
  );
  expect(Date.parse(again as string)).toBeGreaterThanOrEqual(restarted);
}, 60_000);
