import { openDataSource } from '@rollout/platform/postgres';
import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Answerer, CommandHandler } from './command-handler';
import { ClaimedWrite } from './append-statement';
import { EventStore } from './event-store';
import { CreateEventStore1764000000000 } from './migration';
import { StateCache } from './state-cache';

/** A counter that never passes 10: the smallest aggregate whose decisions depend on its state. */
interface Counter {
  version: number;
  total: number;
}
type Added = { type: 'Added'; data: { by: number } };

const LIMIT = 10;
const initialState = (): Counter => ({ version: 0, total: 0 });
const evolve = (state: Counter, event: Added): Counter => ({
  version: state.version + 1,
  total: state.total + event.data.by,
});

/** Adds `by`; `seen` records every state it decided on. */
const add =
  (by: number, seen: number[] = []) =>
  (state: Counter): Added[] => {
    seen.push(state.total);
    if (by < 0) throw new Error('a counter only goes up');
    if (state.total + by > LIMIT) throw new Error(`past ${LIMIT}`);
    return by === 0 ? [] : [{ type: 'Added', data: { by } }];
  };

/** The projection: each counter's total. */
const saveTotal =
  (streamId: string, total: number): ClaimedWrite =>
  (p) =>
    `INSERT INTO totals (stream_id, total) SELECT ${p(streamId)}, ${p(total)}::integer FROM claimed
     ON CONFLICT (stream_id) DO UPDATE SET total = EXCLUDED.total`;

/** Answers the total with a fresh id, so a remembered answer is told apart from a new one. */
const answerTotal =
  (streamId: string): Answerer<Counter, Added, { total: number; answer: string }> =>
  ({ after }) => ({
    response: { total: after.total, answer: randomUUID() },
    writes: [saveTotal(streamId, after.total)],
    weight: 1,
  });

const schema = uniqueName('it_');
const meta = { actor: 'tester' };
let dataSource: DataSource;
let store: EventStore;
let commits = 0;

const counters = (cache?: StateCache<Counter>) =>
  new CommandHandler<Counter, Added>(store, {
    initialState,
    evolve,
    published: (s) => ({ total: s.total }),
    cache,
  });
const stream = async (id: string) =>
  (await store.readStream(id)).map((e) => [e.version, (e.data as Added['data']).by]);
const total = async (id: string) =>
  (await dataSource.query(`SELECT total FROM totals WHERE stream_id = $1`, [id]))[0]?.total;

beforeAll(async () => {
  dataSource = await openDataSource({
    url: TEST_POSTGRES_URL,
    schema,
    poolSize: 20,
    applicationName: 'command-handler-test',
    migrations: [CreateEventStore1764000000000],
  });
  await dataSource.query(
    `CREATE TABLE totals (stream_id text PRIMARY KEY, total integer NOT NULL)`,
  );
  store = new EventStore(dataSource, { onCommit: () => commits++ });
});

afterAll(async () => {
  await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
  await dataSource.destroy();
});

describe('a command on one stream', () => {
  it('given the state it last saw went stale, decides again on the stream as read and appends once', async () => {
    const handler = counters(new StateCache(100));
    await handler.handle('stale', add(1), answerTotal('stale'), meta);
    // Another replica (no shared cache) moves the stream on.
    await counters().handle('stale', add(2), answerTotal('stale'), meta);

    const seen: number[] = [];
    const answer = await handler.handle('stale', add(3, seen), answerTotal('stale'), meta);

    expect(seen).toEqual([1, 3]);
    expect(answer.total).toBe(6);
    expect(await stream('stale')).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(await total('stale')).toBe(6);
  });

  it('given a request id already answered, answers the remembered response and appends nothing', async () => {
    const handler = counters(new StateCache(100));
    const first = await handler.handle('retried', add(4), answerTotal('retried'), {
      ...meta,
      requestId: 'retry-1',
    });

    // The retry would now go past the limit, and would add 4 more if it ran.
    const again = await handler.handle('retried', add(7), answerTotal('retried'), {
      ...meta,
      requestId: 'retry-1',
    });
    const elsewhere = await counters().handle('retried', add(4), answerTotal('retried'), {
      ...meta,
      requestId: 'retry-1',
    });

    expect(again).toEqual(first);
    expect(elsewhere).toEqual(first);
    expect(await stream('retried')).toEqual([[1, 4]]);
    expect(await total('retried')).toBe(4);
  });

  it('given a decision that throws, appends and writes nothing, and a retry of its request id runs', async () => {
    const handler = counters(new StateCache(100));
    await expect(
      handler.handle('refused', add(-1), answerTotal('refused'), {
        ...meta,
        requestId: 'refused-1',
      }),
    ).rejects.toThrow('only goes up');

    expect(await stream('refused')).toEqual([]);
    expect(await total('refused')).toBeUndefined();
    expect(await store.previousResponse('refused-1')).toBeUndefined();
    expect(
      (
        await handler.handle('refused', add(1), answerTotal('refused'), {
          ...meta,
          requestId: 'refused-1',
        })
      ).total,
    ).toBe(1);
  });

  it('given a decision that changes nothing, makes its writes and answers a retry of its request id the same', async () => {
    await counters().handle('unchanged', add(2), answerTotal('unchanged'), meta);
    await dataSource.query(`DELETE FROM totals WHERE stream_id = 'unchanged'`);

    const first = await counters().handle('unchanged', add(0), answerTotal('unchanged'), {
      ...meta,
      requestId: 'unchanged-1',
    });
    const again = await counters().handle('unchanged', add(0), answerTotal('unchanged'), {
      ...meta,
      requestId: 'unchanged-1',
    });

    expect(first.total).toBe(2);
    expect(again).toEqual(first);
    expect(await total('unchanged')).toBe(2);
    expect(await stream('unchanged')).toEqual([[1, 2]]);
  });

  it('given a decision that changed nothing on the stream as read, decides again on the stream as it is in the transaction', async () => {
    await counters().handle('moved', add(9), answerTotal('moved'), meta);
    // Another command lands between the read and the transaction that answers.
    const racing = Object.create(store, {
      runOnce: {
        value: async (...args: Parameters<EventStore['runOnce']>) => (
          await counters().handle('moved', add(1), answerTotal('moved'), meta),
          store.runOnce(...args)
        ),
      },
    }) as EventStore;
    const refuseWhenFull = (state: Counter): Added[] => {
      if (state.total >= LIMIT) throw new Error('full');
      return [];
    };

    // Nothing to do on 9; on 10, as the stream now is, the command is refused rather than answered with 10.
    await expect(
      new CommandHandler<Counter, Added>(racing, {
        initialState,
        evolve,
        published: (s) => s,
      }).handle('moved', refuseWhenFull, answerTotal('moved'), meta),
    ).rejects.toThrow('full');
    expect(await stream('moved')).toEqual([
      [1, 9],
      [2, 1],
    ]);
  });

  it('given concurrent commands on a stream, each one lost is ABORTED and wrote nothing: the projection matches the stream', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        counters().handle('raced', add(1), answerTotal('raced'), meta),
      ),
    );

    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(new Set(lost.map((r) => r.reason.status))).toEqual(
      new Set(lost.length ? ['ABORTED'] : []),
    );
    const events = await stream('raced');
    expect(events).toHaveLength(results.length - lost.length);
    expect(await total('raced')).toBe(events.length);
  });

  it('stores with each event the resource after it, and says when its writes are committed', async () => {
    const before = commits;
    await counters().handle('published', add(2), answerTotal('published'), meta);
    await counters().handle('published', add(3), answerTotal('published'), {
      actor: 'bob',
      requestId: 'published-2',
    });

    expect((await store.readStream('published')).map((e) => e.metadata)).toEqual([
      { actor: 'tester', state: { total: 2 } },
      { actor: 'bob', requestId: 'published-2', state: { total: 5 } },
    ]);
    expect(commits - before).toBe(2);
  });
});

describe('a command over several streams, in one transaction', () => {
  /** Moves `by` from one counter's allowance to another: both streams, or neither. */
  const transfer = (requestId: string, from: string, to: string, by: number, staleTo = false) =>
    store.runOnce(requestId, async (tx) => {
      const handler = counters();
      const [source, target] = [await handler.load(tx, from), await handler.load(tx, to)];
      await handler.append(tx, from, source, add(by)(source), answerTotal(from), {
        ...meta,
        requestId,
      });
      const targetAsSeen = staleTo ? { ...target, version: target.version - 1 } : target;
      return handler.append(tx, to, targetAsSeen, add(by)(target), answerTotal(to), {
        ...meta,
        requestId,
      });
    });

  it('given one stream moved meanwhile, appends to neither and writes nothing', async () => {
    await counters().handle('to-1', add(1), answerTotal('to-1'), meta);

    await expect(transfer('transfer-1', 'from-1', 'to-1', 2, true)).rejects.toMatchObject({
      status: 'ABORTED',
    });

    expect(await stream('from-1')).toEqual([]);
    expect(await total('from-1')).toBeUndefined();
    expect(await store.previousResponse('transfer-1')).toBeUndefined();
  });

  it('given the same request id sent ten times at once, acts once and answers each with the first answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => transfer('transfer-2', 'from-2', 'to-2', 3)),
    );

    expect(new Set(answers.map((a) => a.answer)).size).toBe(1);
    expect(await stream('from-2')).toEqual([[1, 3]]);
    expect(await stream('to-2')).toEqual([[1, 3]]);
    expect([await total('from-2'), await total('to-2')]).toEqual([3, 3]);
  });
});
