import { openDataSource } from '@rollout/platform/postgres';
import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import type { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import type { EventTransaction } from './event-transaction';
import { EventMetadata, NewEvent } from './events';
import { CreateEventStore1764000000000 } from './migration';

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
