import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { JsMsg, NatsConnection, connect } from 'nats';
import { BatchConsumer, BatchConsumerOptions, Rejection } from './batch-consumer';
import { DEAD_LETTER_REASON_HEADER } from './dead-letter';
import { DEAD_LETTER_STREAM, deadLetterSubject } from '@rollout/contracts';
import { createDeclared } from '../test/create-declared';
import { NatsNamespace } from './namespace';

/** The batch consumer against the real server: batching, dead letters, retries and stopping. */
describe('BatchConsumer', () => {
  let nc: NatsConnection;
  let ns: NatsNamespace;
  let consumer: BatchConsumer | undefined;

  const options: BatchConsumerOptions = {
    stream: 'ORDERS',
    durable: 'billing',
    maxMessages: 50,
    maxBytes: 64 * 1024,
    concurrency: 2,
    lingerMs: 5,
  };

  const consumerInfo = async () =>
    (await nc.jetstreamManager()).consumers.info(ns.stream('ORDERS'), 'billing');
  const settled = async (count: number) => {
    const info = await consumerInfo();
    return info.ack_floor.stream_seq >= count &&
      info.num_ack_pending === 0 &&
      info.num_pending === 0
      ? true
      : undefined;
  };
  const publish = async (bodies: string[]) => {
    const js = nc.jetstream();
    for (const body of bodies) await js.publish(ns.subject('orders.v1.new'), body);
  };

  beforeEach(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    ns = new NatsNamespace(uniqueName());
    await createDeclared(nc, ns, {
      streams: [
        {
          name: 'ORDERS',
          subjects: ['orders.v1.>'],
          maxAgeMs: 60_000,
          maxBytes: 10_000_000,
          duplicateWindowMs: 10_000,
        },
        {
          name: DEAD_LETTER_STREAM.name,
          subjects: DEAD_LETTER_STREAM.subjects,
          maxAgeMs: 60_000,
          maxBytes: 1_000_000,
          duplicateWindowMs: 10_000,
        },
      ],
      consumers: [{ stream: 'ORDERS', durable: 'billing', ackWaitMs: 3_000, maxDeliver: -1 }],
    });
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    const jsm = await nc.jetstreamManager();
    for (const name of ['ORDERS', DEAD_LETTER_STREAM.name])
      await jsm.streams.delete(ns.stream(name)).catch(() => undefined);
    await nc.close();
  });

  it('hands over batches of at most maxMessages and maxBytes, acknowledges them, and dead-letters what the handler rejects', async () => {
    const batches: string[][] = [];
    consumer = new BatchConsumer(
      nc,
      ns,
      options,
      async (messages: JsMsg[]): Promise<Rejection[]> => {
        batches.push(messages.map((m) => m.string()));
        return messages
          .filter((m) => m.string().startsWith('bad'))
          .map((message) => ({ message, reason: `refused\n${message.string()}` }));
      },
    );
    await publish([
      ...Array.from({ length: 120 }, (_, i) => (i % 40 === 7 ? `bad-${i}` : `ok-${i}`)),
      'x'.repeat(40 * 1024),
      'y'.repeat(40 * 1024),
    ]);
    consumer.start();
    await eventually(() => settled(122), { what: 'every message settled' });

    expect(batches.flat()).toHaveLength(122);
    expect(batches.every((batch) => batch.length <= 50)).toBe(true);
    expect(
      batches.every((batch) => batch.reduce((sum, body) => sum + body.length, 0) <= 64 * 1024),
    ).toBe(true);
    const jsm = await nc.jetstreamManager();
    const letters = await jsm.streams.info(ns.stream(DEAD_LETTER_STREAM.name));
    expect(letters.state.messages).toBe(3);
    const first = await jsm.streams.getMessage(ns.stream(DEAD_LETTER_STREAM.name), {
      seq: letters.state.first_seq,
    });
    expect(first.subject).toBe(ns.subject(deadLetterSubject('ORDERS')));
    expect(first.header.get(DEAD_LETTER_REASON_HEADER)).toBe('refused\\u000abad-7');
  });

  it('holds no more than maxHeldBytes of payload pulled and not yet settled, however many messages wait', async () => {
    const KIB = 1024;
    const handled: number[] = [];
    let highest = 0;
    consumer = new BatchConsumer(
      nc,
      ns,
      { ...options, maxMessages: 50, maxBytes: 4 * KIB, maxHeldBytes: 16 * KIB },
      async (messages: JsMsg[]): Promise<Rejection[]> => {
        // What the server has handed out and not had acknowledged: this process's share of the stream.
        highest = Math.max(highest, (await consumerInfo()).num_ack_pending);
        await new Promise((resolve) => setTimeout(resolve, 20));
        handled.push(messages.length);
        return [];
      },
    );
    await publish(Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(KIB, '.')));
    consumer.start();
    await eventually(() => settled(200), { what: 'every message settled' });

    expect(handled.reduce((sum, n) => sum + n, 0)).toBe(200);
    // 16 KiB of 1 KiB messages, and the first pull's, sized before any message was seen.
    expect(highest).toBeGreaterThan(1);
    expect(highest).toBeLessThanOrEqual(16);
  });

  it('hands over each message of a trickle as it comes, none left waiting for its ack wait', async () => {
    // One message at a time, the next published once the last is handed over. The pull asks for
    // more every 25 messages (a quarter of the 100 it buffers), and that request waits in the
    // client's queue right behind the message it followed: the message must still be handed over.
    const handed: { seq: number; redelivered: boolean }[] = [];
    consumer = new BatchConsumer(nc, ns, options, async (messages) => {
      handed.push(...messages.map((m) => ({ seq: m.seq, redelivered: m.info.redelivered })));
      return [];
    });
    consumer.start();
    for (let i = 1; i <= 60; i++) {
      await publish([`m${i}`]);
      await eventually(() => (handed.length >= i ? true : undefined), {
        what: `message ${i} handed over`,
      });
    }
    await eventually(() => settled(60), { what: 'every message settled' });

    expect(handed.filter((m) => m.redelivered)).toEqual([]);
    expect(handed.map((m) => m.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect((await consumerInfo()).num_redelivered).toBe(0);
  });

  it('hands a failing batch back until the handler succeeds, keeping its messages from redelivery, and counts each try', async () => {
    let failures = 3;
    const retries: number[] = [];
    const seen: string[] = [];
    consumer = new BatchConsumer(
      nc,
      ns,
      { ...options, onRetry: (_error, attempt) => retries.push(attempt) },
      async (messages) => {
        if (failures-- > 0) throw new Error('store down');
        seen.push(...messages.map((m) => m.string()));
        return [];
      },
    );
    await publish(['a', 'b', 'c']);
    consumer.start();
    await eventually(() => settled(3), { what: 'settled after the failures' });
    // One retry per failure. The three messages may arrive as one batch or more (a pull can
    // start before all are stored); each batch counts its own tries from 0, one after another.
    expect(retries).toHaveLength(3);
    expect(retries.every((attempt, i) => attempt === 0 || attempt === retries[i - 1] + 1)).toBe(
      true,
    );
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect((await consumerInfo()).num_redelivered).toBe(0);
  });

  it('hands a message over once when its ack wait runs out while it lingers in a batch, and settles it', async () => {
    // Ack wait 1 s: the first batch is held 2.5 s, so what waits behind it is delivered again
    // into the lingering second batch (and the first batch's message too).
    await (
      await nc.jetstreamManager()
    ).consumers.update(ns.stream('ORDERS'), 'billing', { ack_wait: 1_000_000_000 });
    let holdFirst: Promise<void> | undefined = new Promise((resolve) => setTimeout(resolve, 2_500));
    const calls: number[][] = [];
    consumer = new BatchConsumer(
      nc,
      ns,
      { ...options, maxMessages: 1_000, concurrency: 1 },
      async (messages) => {
        calls.push(messages.map((m) => m.seq));
        const hold = holdFirst;
        holdFirst = undefined;
        await hold;
        return [];
      },
    );
    consumer.start();
    await publish(['a']);
    await eventually(() => (calls.length === 1 ? true : undefined), {
      what: 'the first batch taken',
    });
    await publish(Array.from({ length: 10 }, (_, i) => `b${i}`));
    await eventually(() => settled(11), { timeoutMs: 15_000, what: 'every message settled' });

    expect(calls[0]).toEqual([1]);
    const second = calls[1];
    // Delivered at least twice into it (the 1 s ack wait ran out while it lingered), handed over once.
    expect([...second].sort((x, y) => x - y)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect((await consumerInfo()).num_ack_pending).toBe(0);
  });

  it('waits for `ready` before consuming, and on stop hands unfinished batches back for redelivery', async () => {
    let release!: () => void;
    const handled: string[] = [];
    consumer = new BatchConsumer(nc, ns, options, async (messages) => {
      handled.push(...messages.map((m) => m.string()));
      throw new Error('never succeeds');
    });
    await publish(['a', 'b']);
    consumer.start(new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handled).toEqual([]);
    release();
    await eventually(() => (handled.length >= 2 ? true : undefined), { what: 'handled once' });
    await consumer.stop();
    consumer = undefined;
    // Naked: delivered again to the next consumer, nothing lost. (One may first go to the stopped
    // consumer's pull request, which the server keeps open: it comes back after the ack wait.)
    const redelivered: string[] = [];
    consumer = new BatchConsumer(nc, ns, options, async (messages) => {
      redelivered.push(...messages.map((m) => m.string()));
      return [];
    });
    consumer.start();
    await eventually(() => settled(2), { timeoutMs: 15_000, what: 'settled by the next consumer' });
    expect([...new Set(redelivered)].sort()).toEqual(['a', 'b']);
  });
});
