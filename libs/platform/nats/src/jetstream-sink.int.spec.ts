import {
  CreateEventStore1764000000000,
  EventMetadata,
  EventStore,
  EventTransaction,
  NewEvent,
  OutboxRelay,
  START,
} from '@rollout/platform/event-store';
import { openDataSource } from '@rollout/platform/postgres';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, StringCodec, connect, nanos } from 'nats';
import type { DataSource } from 'typeorm';
import { JetStreamSink } from './jetstream-sink';

// The event store's outbox relay into a stream: what JetStreamSink adds to the relay's
// at-least-once (duplicates dropped by id, order kept, a lost checkpoint recovered).
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
    const placed = [
      { type: 'Placed', data: {} },
      { type: 'Paid', data: {} },
      { type: 'Shipped', data: {} },
    ];
    await store.transaction((tx) => append(tx, 'order-1', 0, placed, meta));
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
