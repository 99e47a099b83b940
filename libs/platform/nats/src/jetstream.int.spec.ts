import { Injectable, INestApplication, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { JSONCodec, JsMsg, NatsConnection, connect } from 'nats';
import { DEAD_LETTER_STREAM, deadLetterSubject } from '@rollout/contracts';
import { createDeclared } from '../test/create-declared';
import { NatsModule, NatsReadiness } from './nats.module';
import { NatsNamespace } from './namespace';
import { DEAD_LETTER_REASON_HEADER } from './dead-letter';
import { PoisonMessageError, PullConsumerHost } from './pull-consumer-host';

const codec = JSONCodec<{ n: number; kind?: 'ok' | 'poison' | 'flaky' | 'broken' | 'slow' }>();

describe('a service whose streams were not provisioned', () => {
  const ns = new NatsNamespace(uniqueName());
  let nc: NatsConnection;
  let app: INestApplication | undefined;

  afterAll(async () => {
    await app?.close();
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(ns.stream('ORDERS')).catch(() => undefined);
    await nc.close();
  });

  it('creates nothing, is not ready while a stream or consumer is missing, naming it and how to provision, and is once it exists', async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    @Module({
      imports: [
        NatsModule.forRoot({
          name: 'billing',
          servers: [TEST_NATS_URL],
          namespace: ns.prefix,
          jetstream: {
            streams: ['ORDERS'],
            consumers: [{ stream: 'ORDERS', durable: 'billing' }],
            buckets: [],
          },
        }),
      ],
    })
    class BillingModule {}
    app = await NestFactory.create(BillingModule, { logger: false });
    await app.init();
    const readiness = app.get(NatsReadiness);
    await expect(readiness.check()).rejects.toThrow(
      `stream ${ns.stream('ORDERS')} missing: run the bus provisioning step first`,
    );
    const jsm = await nc.jetstreamManager();
    await expect(jsm.streams.info(ns.stream('ORDERS'))).rejects.toThrow('stream not found');

    await createDeclared(nc, ns, {
      streams: [
        {
          name: 'ORDERS',
          subjects: ['orders.v1.>'],
          maxAgeMs: 0,
          maxBytes: -1,
          duplicateWindowMs: 1000,
        },
      ],
    });
    await expect(readiness.check()).rejects.toThrow(
      `durable consumer billing on ${ns.stream('ORDERS')} missing`,
    );
    await createDeclared(nc, ns, {
      consumers: [{ stream: 'ORDERS', durable: 'billing', ackWaitMs: 5_000, maxDeliver: 3 }],
    });
    await expect(readiness.check()).resolves.toBeUndefined();
  });
});

describe('PullConsumerHost', () => {
  const namespace = uniqueName();
  const ns = new NatsNamespace(namespace);
  const handled: number[] = [];
  const attempts = new Map<number, number>();
  let app: INestApplication;
  let nc: NatsConnection;

  @Injectable()
  class OrdersConsumer implements OnModuleInit {
    constructor(private readonly host: PullConsumerHost) {}

    onModuleInit() {
      this.host.register({
        stream: 'ORDERS',
        durable: 'billing',
        maxDeliver: 3,
        retryDelayMs: 50,
        handle: (message: JsMsg) => this.handle(message),
      });
    }

    private async handle(message: JsMsg) {
      const order = codec.decode(message.data);
      const tries = (attempts.get(order.n) ?? 0) + 1;
      attempts.set(order.n, tries);
      if (order.kind === 'poison') throw new PoisonMessageError(`order ${order.n} has no customer`);
      if (order.kind === 'broken') throw new Error(`billing backend rejected order ${order.n}`);
      if (order.kind === 'flaky' && tries < 2) throw new Error('billing backend timed out');
      if (order.kind === 'slow') await new Promise((r) => setTimeout(r, 500));
      handled.push(order.n);
    }
  }

  async function start() {
    @Module({
      imports: [
        NatsModule.forRoot({
          name: 'billing',
          servers: [TEST_NATS_URL],
          namespace,
          jetstream: {
            streams: ['ORDERS', DEAD_LETTER_STREAM.name],
            consumers: [{ stream: 'ORDERS', durable: 'billing' }],
            buckets: [],
          },
        }),
      ],
      providers: [OrdersConsumer],
    })
    class BillingModule {}
    const instance = await NestFactory.create(BillingModule, { logger: false });
    await instance.init();
    return instance;
  }

  const publish = (n: number, kind?: 'ok' | 'poison' | 'flaky' | 'broken' | 'slow') =>
    nc
      .jetstream()
      .publish(ns.subject(`orders.v1.${n}`), codec.encode({ n, kind }), { msgID: `order-${n}` });

  async function deadLetters() {
    const jsm = await nc.jetstreamManager();
    const letters: { n: number; reason: string | undefined }[] = [];
    const info = await jsm.streams.info(ns.stream(DEAD_LETTER_STREAM.name)).catch(() => undefined);
    for (let seq = 1; info && seq <= info.state.last_seq; seq++) {
      const stored = await jsm.streams.getMessage(ns.stream(DEAD_LETTER_STREAM.name), { seq });
      expect(stored.subject).toBe(ns.subject(deadLetterSubject('ORDERS')));
      letters.push({
        n: codec.decode(stored.data).n,
        reason: stored.header.get(DEAD_LETTER_REASON_HEADER),
      });
    }
    return letters;
  }

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    // What the provisioning step does before the service starts.
    await createDeclared(nc, ns, {
      streams: [
        {
          name: 'ORDERS',
          subjects: ['orders.v1.>'],
          maxAgeMs: 60_000,
          maxBytes: 1_000_000,
          duplicateWindowMs: 10_000,
        },
        DEAD_LETTER_STREAM,
      ],
      consumers: [{ stream: 'ORDERS', durable: 'billing', ackWaitMs: 5_000, maxDeliver: 3 }],
    });
    app = await start();
  });

  afterAll(async () => {
    await app?.close();
    const jsm = await nc.jetstreamManager();
    for (const stream of ['ORDERS', DEAD_LETTER_STREAM.name])
      await jsm.streams.delete(ns.stream(stream)).catch(() => undefined);
    await nc.close();
  });

  it('handles every message once, even when the producer retries a publish', async () => {
    await publish(1);
    await publish(1);
    await publish(2);
    await eventually(() => (handled.includes(2) ? true : undefined), { what: 'order 2 handled' });
    expect(handled.filter((n) => n === 1)).toEqual([1]);
  });

  it('retries a failed message and then succeeds', async () => {
    await publish(3, 'flaky');
    await eventually(() => (handled.includes(3) ? true : undefined), { what: 'order 3 handled' });
    expect(attempts.get(3)).toBe(2);
  });

  it('dead-letters a poison message at once, with the reason', async () => {
    await publish(4, 'poison');
    const letters = await eventually(
      async () => {
        const found = await deadLetters();
        return found.some((l) => l.n === 4) ? found : undefined;
      },
      { what: 'order 4 dead-lettered' },
    );
    expect(letters.find((l) => l.n === 4)?.reason).toBe('order 4 has no customer');
    expect(attempts.get(4)).toBe(1);
  });

  it('dead-letters a message that keeps failing after maxDeliver tries, and keeps consuming', async () => {
    await publish(5, 'broken');
    await publish(6);
    const letters = await eventually(
      async () => {
        const found = await deadLetters();
        return found.some((l) => l.n === 5) ? found : undefined;
      },
      { what: 'order 5 dead-lettered' },
    );
    expect(letters.find((l) => l.n === 5)?.reason).toBe('billing backend rejected order 5');
    expect(attempts.get(5)).toBe(3);
    await eventually(() => (handled.includes(6) ? true : undefined), { what: 'order 6 handled' });
  });

  it('finishes the message in hand before shutting down, and a restart resumes where it stopped', async () => {
    await publish(7, 'slow');
    await eventually(() => (attempts.get(7) ? true : undefined), { what: 'order 7 started' });
    await app.close();
    expect(handled).toContain(7);
    await publish(8);
    app = await start();
    await eventually(() => (handled.includes(8) ? true : undefined), {
      what: 'order 8 handled after restart',
    });
    expect(handled.filter((n) => n === 7)).toEqual([7]);
  });
});
