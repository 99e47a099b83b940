import type { INestApplication } from '@nestjs/common';
import { EXPERIMENT_EVENTS_STREAM } from '@rollout/contracts';
import { TEST_NATS_URL, eventually } from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { ExperimentWorld, Isolation, cleanUp, deadLetters, isolation, publishTraffic, settledUpTo, startEvaluator, trafficEvent } from '../test-support';

describe('an evaluator started before the experiment-service ever ran', () => {
  let iso: Isolation;
  let nc: NatsConnection;
  let app: INestApplication;

  beforeAll(async () => {
    iso = isolation();
    nc = await connect({ servers: TEST_NATS_URL });
    app = await startEvaluator(iso);
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await cleanUp(iso);
  });

  it('creates EXPERIMENT_EVENTS as the contract describes it, is ready with nothing to preview, and follows the first events', async () => {
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    await eventually(async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined), { what: 'ready' });
    const stream = await (await nc.jetstreamManager()).streams.info(iso.ns.stream(EXPERIMENT_EVENTS_STREAM));
    expect(stream.config.subjects).toEqual([iso.ns.subject('experiment.v1.events.>')]);

    // No live policy yet: its traffic is dead-lettered.
    let seq = await publishTraffic(nc, iso, 'web', [trafficEvent(1)]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled' });
    expect((await deadLetters(nc, iso)).map((l) => l.reason)).toEqual(['no live policy projects/acme/locations/global/firewallPolicies/web']);

    // The experiment-service's first events arrive on the stream the evaluator made.
    const world = new ExperimentWorld(nc, iso);
    await world.policy('web', []);
    await eventually(async () => {
      const before = (await deadLetters(nc, iso)).length;
      seq = await publishTraffic(nc, iso, 'web', [trafficEvent(2)]);
      await eventually(() => settledUpTo(nc, iso, seq));
      return (await deadLetters(nc, iso)).length === before ? true : undefined;
    }, { what: 'traffic of the new policy accepted' });
  });
});
