import { openDataSource } from '@rollout/platform/postgres';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, StringCodec, connect, nanos } from 'nats';
import type { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import type { EventTransaction } from './event-transaction';
import { EventMetadata, NewEvent, START } from './events';
import { CreateEventStore1764000000000 } from './migration';
import { JetStreamSink, OutboxRelay } from './outbox-relay';

const schema = uniqueName('it_');
const meta = { actor: 'tester' };
/** Appends `events` with one metadata, in `tx`. */
const append = (
  tx: EventTransaction,
  streamId: string,
  expectedVersion: number,
  events: NewEvent[],
  metadata: EventMetadata,
) =>
  tx.appendAtomically(
    streamId,
    expectedVersion,
    events.map((event) => ({ ...event, metadata })),
  );
let dataSource: DataSource;
let store: EventStore;

beforeAll(async () => {
  dataSource = await openDataSource({
    url: TEST_POSTGRES_URL,
    schema,
    poolSize: 60,
    applicationName: 'event-store-test',
    migrations: [CreateEventStore1764000000000],
  });
  store = new EventStore(dataSource);
});

afterAll(async () => {
  await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
  await dataSource.destroy();
});

describe('appending', () => {
  it('appends in order and reads the stream back', async () => {
    await store.transaction((tx) =>
      append(
        tx,
        'order-1',
        0,
        [
          { type: 'Placed', data: { n: 1 } },
          { type: 'Paid', data: {} },
        ],
        meta,
      ),
    );
    await store.transaction((tx) =>
      append(tx, 'order-1', 2, [{ type: 'Shipped', data: {} }], { actor: 'bob', requestId: 'r1' }),
    );
    const events = await store.readStream('order-1');
    expect(events.map((e) => [e.type, e.version, e.metadata.actor])).toEqual([
      ['Placed', 1, 'tester'],
      ['Paid', 2, 'tester'],
      ['Shipped', 3, 'bob'],
    ]);
  });

  it('lets exactly one of 50 concurrent appends at the same version win', async () => {
    await store.transaction((tx) => append(tx, 'order-2', 0, [{ type: 'Placed', data: {} }], meta));
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        store.transaction((tx) =>
          append(tx, 'order-2', 1, [{ type: 'Amended', data: { i } }], meta),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(new Set(rejected.map((r) => r.reason.status))).toEqual(new Set(['ABORTED']));
    expect((await store.readStream('order-2')).map((e) => e.version)).toEqual([1, 2]);
  });

  it('lets only one of concurrent creations of a stream win', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        store.transaction((tx) => append(tx, 'order-3', 0, [{ type: 'Placed', data: {} }], meta)),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('rolls the whole transaction back when one stream of it conflicts', async () => {
    await store.transaction((tx) => append(tx, 'order-4', 0, [{ type: 'Placed', data: {} }], meta));
    await expect(
      store.transaction(async (tx) => {
        await append(tx, 'order-5', 0, [{ type: 'Placed', data: {} }], meta);
        await append(tx, 'order-4', 0, [{ type: 'Placed', data: {} }], meta);
      }),
    ).rejects.toMatchObject({ status: 'ABORTED' });
    expect(await store.readStream('order-5')).toEqual([]);
  });
});

describe('reading the global log', () => {
  it('never skips an event committed late by a concurrent transaction', async () => {
    const start = await dataSource.query(`SELECT pg_current_xact_id()::text AS tx`);
    const from = { txId: start[0].tx, position: '0' };
    let releaseSlow!: () => void;
    const slowMayCommit = new Promise<void>((r) => (releaseSlow = r));
    // The slow transaction takes its position first, then commits last.
    const slow = store.transaction(async (tx) => {
      await append(tx, 'late-1', 0, [{ type: 'Late', data: {} }], meta);
      await slowMayCommit;
    });
    await new Promise((r) => setTimeout(r, 100));
    await store.transaction((tx) => append(tx, 'early-1', 0, [{ type: 'Early', data: {} }], meta));

    // While the slow one is open, the early event is not handed out: reading it would move
    // the cursor past the late event's position.
    expect(
      (await store.readAll(from, 100)).filter((e) => ['late-1', 'early-1'].includes(e.streamId)),
    ).toEqual([]);
    releaseSlow();
    await slow;
    const all = (await store.readAll(from, 100)).filter((e) =>
      ['late-1', 'early-1'].includes(e.streamId),
    );
    expect(all.map((e) => e.streamId)).toEqual(['late-1', 'early-1']);
  });
});

describe('the outbox relay', () => {
  let nc: NatsConnection;
  const stream = uniqueName('RELAY_');
  const codec = StringCodec();

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({
      name: stream,
      subjects: [`${stream}.>`],
      duplicate_window: nanos(60_000),
    });
  });

  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream);
    await nc.close();
  });

  const relay = () =>
    new OutboxRelay(dataSource, store, {
      name: stream,
      sink: new JetStreamSink(nc.jetstream(), {
        toMessage: (e) => ({
          subject: `${stream}.${e.streamId}`,
          payload: codec.encode(`${e.streamId}:${e.version}`),
        }),
      }),
    });

  async function published(): Promise<string[]> {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    const out: string[] = [];
    for (let seq = 1; seq <= info.state.last_seq; seq++) {
      out.push(codec.decode((await jsm.streams.getMessage(stream, { seq })).data));
    }
    return out;
  }

  it('publishes every committed event once, in order per stream, even after a crash before the checkpoint', async () => {
    await store.transaction((tx) =>
      append(
        tx,
        'cart-1',
        0,
        [
          { type: 'A', data: {} },
          { type: 'B', data: {} },
        ],
        meta,
      ),
    );
    const before = await store.readAll(START, 10_000);
    // A relay that "crashed" after publishing but before saving its checkpoint...
    const js = nc.jetstream();
    for (const event of before.filter((e) => e.streamId === 'cart-1')) {
      await js.publish(
        `${stream}.${event.streamId}`,
        codec.encode(`${event.streamId}:${event.version}`),
        { msgID: event.eventId },
      );
    }
    // ...then a fresh relay starts from its (absent) checkpoint and publishes everything again.
    const running = relay();
    running.start();
    await store.transaction((tx) => append(tx, 'cart-1', 2, [{ type: 'C', data: {} }], meta));
    running.nudge();
    const carts = await eventually(async () => {
      const all = (await published()).filter((m) => m.startsWith('cart-1'));
      return all.length >= 3 ? all : undefined;
    });
    await running.stop();
    expect(carts).toEqual(['cart-1:1', 'cart-1:2', 'cart-1:3']);
    const orders = (await published()).filter((m) => m.startsWith('order-1'));
    expect(orders).toEqual(['order-1:1', 'order-1:2', 'order-1:3']);
  });

  it('lets only one relay publish at a time', async () => {
    const [a, b] = [relay(), relay()];
    await store.transaction((tx) => append(tx, 'cart-2', 0, [{ type: 'A', data: {} }], meta));
    const counts = await Promise.all([a.publishBatch(), b.publishBatch()]);
    expect(counts.filter((n) => n > 0)).toHaveLength(1);
  });

  it('stops a batch at a publish that fails: nothing after it is stored, and the next batch goes on from it', async () => {
    const limited = uniqueName('RELAY_LIMITED_');
    const jsm = await nc.jetstreamManager();
    // The server refuses the oversized event; the events after it are small and would be stored.
    await jsm.streams.add({ name: limited, subjects: [`${limited}.>`], max_msg_size: 1024 });
    const into = new OutboxRelay(dataSource, store, {
      name: limited,
      sink: new JetStreamSink(nc.jetstream(), {
        toMessage: (e) => ({
          subject: `${limited}.${e.streamId}`,
          payload: codec.encode(e.type === 'Big' ? 'x'.repeat(2048) : `${e.streamId}:${e.version}`),
        }),
      }),
    });
    const stored = async () => {
      const info = await jsm.streams.info(limited);
      const out: string[] = [];
      for (let seq = 1; seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(limited, { seq });
        if (message.subject.startsWith(`${limited}.pipe-`))
          out.push(message.data.length > 1024 ? 'big' : codec.decode(message.data));
      }
      return out;
    };
    try {
      await store.transaction((tx) => append(tx, 'pipe-1', 0, [{ type: 'A', data: {} }], meta));
      await store.transaction((tx) => append(tx, 'pipe-2', 0, [{ type: 'Big', data: {} }], meta));
      await store.transaction((tx) => append(tx, 'pipe-1', 1, [{ type: 'B', data: {} }], meta));
      await store.transaction((tx) => append(tx, 'pipe-3', 0, [{ type: 'C', data: {} }], meta));
      await expect(into.publishBatch()).rejects.toThrow(/size/i);
      expect(await stored()).toEqual(['pipe-1:1']);
      await jsm.streams.update(limited, { max_msg_size: 4096 });
      expect(await into.publishBatch()).toBe(3);
      expect(await stored()).toEqual(['pipe-1:1', 'big', 'pipe-1:2', 'pipe-3:1']);
    } finally {
      await jsm.streams.delete(limited);
    }
  });

  it('resumes after the last event in the stream when its checkpoint is lost, even past the duplicate window', async () => {
    const short = uniqueName('RELAY_SHORT_');
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: short, subjects: [`${short}.>`], duplicate_window: nanos(200) });
    const relayInto = (resume: boolean) =>
      new OutboxRelay(dataSource, store, {
        name: short,
        sink: new JetStreamSink(
          nc.jetstream(),
          {
            ...(resume ? { stream: short } : {}),
            toMessage: (e) => ({
              subject: `${short}.${e.streamId}`,
              payload: codec.encode(`${e.streamId}:${e.version}`),
            }),
          },
          jsm,
        ),
      });
    const drain = async (r: OutboxRelay) => {
      let total = 0;
      for (let n = await r.publishBatch(); n > 0; n = await r.publishBatch()) total += n;
      return total;
    };
    try {
      const first = await drain(relayInto(true));
      expect(first).toBeGreaterThan(0);
      const forget = () =>
        dataSource.query(`DELETE FROM relay_checkpoints WHERE name = $1`, [short]);
      await forget();
      await new Promise((r) => setTimeout(r, 400)); // past the 200 ms duplicate window
      expect(await drain(relayInto(true))).toBe(0);
      expect((await jsm.streams.info(short)).state.messages).toBe(first);
      // Without the stream to resume from, the same loss republishes everything as new messages.
      await forget();
      expect(await drain(relayInto(false))).toBe(first);
      expect((await jsm.streams.info(short)).state.messages).toBe(2 * first);
    } finally {
      await jsm.streams.delete(short);
    }
  });
});
