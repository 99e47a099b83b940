import type { JetStreamDeclarations } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect, nanos } from 'nats';
import { declareJetStream } from './declare-jetstream';

describe('JetStream declarations', () => {
  let nc: NatsConnection;
  const ns = new NatsNamespace(uniqueName());
  const declarations: JetStreamDeclarations = {
    streams: [
      {
        name: 'ORDERS',
        subjects: ['orders.v1.>'],
        maxAgeMs: 60_000,
        maxBytes: 1_000_000,
        duplicateWindowMs: 10_000,
      },
    ],
    consumers: [{ stream: 'ORDERS', durable: 'billing', ackWaitMs: 5_000, maxDeliver: 3 }],
    kv: [{ bucket: 'snapshots' }],
  };

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
  });

  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(ns.stream('ORDERS')).catch(() => undefined);
    await jsm.streams.delete(`KV_${ns.bucket('snapshots')}`).catch(() => undefined);
    await jsm.streams.delete(`KV_${ns.bucket('expiring')}`).catch(() => undefined);
    await nc.close();
  });

  it('creates streams, consumers and buckets, and running it again changes nothing', async () => {
    await declareJetStream(nc, ns, declarations);
    await declareJetStream(nc, ns, declarations);
    const jsm = await nc.jetstreamManager();
    const stream = await jsm.streams.info(ns.stream('ORDERS'));
    expect(stream.config.subjects).toEqual([ns.subject('orders.v1.>')]);
    const consumer = await jsm.consumers.info(ns.stream('ORDERS'), 'billing');
    expect(consumer.config.max_deliver).toBe(3);
    const kv = await nc.jetstream().views.kv(ns.bucket('snapshots'));
    await kv.put('k', 'v');
    expect((await kv.get('k'))?.string()).toBe('v');
  });

  it('updates an existing stream and consumer to a changed declaration', async () => {
    await declareJetStream(nc, ns, declarations);
    await declareJetStream(nc, ns, {
      streams: [{ ...declarations.streams![0], maxAgeMs: 120_000 }],
      consumers: [{ ...declarations.consumers![0], maxDeliver: 5 }],
    });
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info(ns.stream('ORDERS'))).config.max_age).toBe(nanos(120_000));
    expect((await jsm.consumers.info(ns.stream('ORDERS'), 'billing')).config.max_deliver).toBe(5);
  });

  it('gives a bucket the declared time to live, and changes it on an existing bucket', async () => {
    const jsm = await nc.jetstreamManager();
    const stream = `KV_${ns.bucket('expiring')}`;
    await declareJetStream(nc, ns, { kv: [{ bucket: 'expiring', ttlMs: 60_000 }] });
    expect((await jsm.streams.info(stream)).config.max_age).toBe(nanos(60_000));
    await declareJetStream(nc, ns, { kv: [{ bucket: 'expiring', ttlMs: 120_000 }] });
    expect((await jsm.streams.info(stream)).config.max_age).toBe(nanos(120_000));
  });
});
