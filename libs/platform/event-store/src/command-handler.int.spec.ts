import { openDataSource } from '@rollout/platform/postgres';
import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Aggregate, CommandHandler } from './command-handler';
import { ClaimedWrite } from './event-statements';
import { EventStore } from './event-store';
import { AnswerNames1767200000000, CreateEventStore1764000000000 } from './migration';
import { StateCache } from './state-cache';

/** A counter that never passes 10: the smallest aggregate whose decisions depend on its state. */
interface Counter {
  id: string;
  version: number;
  total: number;
}
type Added = { type: 'Added'; data: { by: number } };
/** Adds `by`, in `steps` events (1 if left out); `seen` records every state it decided on. */
interface Add {
  by: number;
  steps?: number;
  seen?: number[];
  refuseWhenFull?: boolean;
}
type Total = { name?: string; total: number; answer: string };

const LIMIT = 10;
const initialState = (id: string): Counter => ({ id, version: 0, total: 0 });
const evolve = (state: Counter, event: Added): Counter => ({
  id: state.id,
  version: state.version + 1,
  total: state.total + event.data.by,
});

const add = (by: number, seen: number[] = []): Add => ({ by, seen });

const decide = ({ by, steps = 1, seen, refuseWhenFull }: Add, state: Counter): Added[] => {
  seen?.push(state.total);
  if (refuseWhenFull && state.total >= LIMIT) throw new Error('full');
  if (by < 0) throw new Error('a counter only goes up');
  if (state.total + by > LIMIT) throw new Error(`past ${LIMIT}`);
  return by === 0
    ? []
    : Array.from({ length: steps }, () => ({ type: 'Added', data: { by: by / steps } }));
};

/** The projection: each counter's total, written from the resource's JSON. */
const saveTotal =
  (streamId: string, resource: string): ClaimedWrite =>
  (p) =>
    `INSERT INTO totals (stream_id, total) SELECT ${p(streamId)}, (${p(resource)}::jsonb ->> 'total')::integer FROM claimed
     ON CONFLICT (stream_id) DO UPDATE SET total = EXCLUDED.total`;

/** Answers the total with a fresh id, so a remembered answer is told apart from a new one. */
const counterAggregate = (
  cache?: StateCache<Counter>,
  named = false,
): Aggregate<Counter, Add, Added, { total: number }, Total> => ({
  initialState,
  decide,
  evolve,
  view: (s) => ({ total: s.total }),
  project: ({ after, resource }) => ({
    response: {
      ...(named ? { name: `answers/${randomUUID()}` } : {}),
      total: after.total,
      answer: randomUUID(),
    },
    writes: [saveTotal(after.id, resource!)],
  }),
  cache,
});
const schema = uniqueName('it_');
const meta = { actor: 'tester' };
const asked = (requestId: string) => ({ ...meta, requestId });
let dataSource: DataSource;
let store: EventStore;
let commits = 0;

const counters = (cache?: StateCache<Counter>, named = false) =>
  new CommandHandler(store, counterAggregate(cache, named));
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
    migrations: [CreateEventStore1764000000000, AnswerNames1767200000000],
  });
  await dataSource.query(
    `CREATE TABLE totals (stream_id text PRIMARY KEY, total integer NOT NULL)`,
  );
  store = new EventStore(dataSource, {
    onCommit: () => commits++,
    answerName: (answer) => (answer as Total).name,
  });
});

afterAll(async () => {
  await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
  await dataSource.destroy();
});

describe('a command on one stream', () => {
  it('given the state it last saw went stale, decides again on the stream as read and appends once', async () => {
    const handler = counters(new StateCache(100));
    await handler.handle('stale', add(1), meta);
    // Another replica (no shared cache) moves the stream on.
    await counters().handle('stale', add(2), meta);

    const seen: number[] = [];
    const answer = await handler.handle('stale', add(3, seen), meta);

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
    const first = await handler.handle('retried', add(4), asked('retry-1'));

    // The retry would now go past the limit, and would add 4 more if it ran.
    const again = await handler.handle('retried', add(7), asked('retry-1'));
    const elsewhere = await counters().handle('retried', add(4), asked('retry-1'));

    expect(again).toEqual(first);
    expect(elsewhere).toEqual(first);
    expect(await stream('retried')).toEqual([[1, 4]]);
    expect(await total('retried')).toBe(4);
  });

  it('given a decision that throws, appends and writes nothing, and a retry of its request id runs', async () => {
    const handler = counters(new StateCache(100));
    await expect(handler.handle('refused', add(-1), asked('refused-1'))).rejects.toThrow(
      'only goes up',
    );

    expect(await stream('refused')).toEqual([]);
    expect(await total('refused')).toBeUndefined();
    expect(await store.previousResponse('refused-1')).toBeUndefined();
    expect((await handler.handle('refused', add(1), asked('refused-1'))).total).toBe(1);
  });

  it('given a decision that changes nothing, makes its writes and answers a retry of its request id the same', async () => {
    await counters().handle('unchanged', add(2), meta);
    await dataSource.query(`DELETE FROM totals WHERE stream_id = 'unchanged'`);

    const first = await counters().handle('unchanged', add(0), asked('unchanged-1'));
    const again = await counters().handle('unchanged', add(0), asked('unchanged-1'));

    expect(first.total).toBe(2);
    expect(again).toEqual(first);
    expect(await total('unchanged')).toBe(2);
    expect(await stream('unchanged')).toEqual([[1, 2]]);
  });

  it('given a decision that changed nothing on the stream as read, decides again on the stream as it is in the transaction', async () => {
    await counters().handle('moved', add(9), meta);
    // Another command lands between the read and the transaction that answers.
    const racing = Object.create(store, {
      runOnce: {
        value: async (...args: Parameters<EventStore['runOnce']>) => (
          await counters().handle('moved', add(1), meta),
          store.runOnce(...args)
        ),
      },
    }) as EventStore;

    // Nothing to do on 9; on 10, as the stream now is, the command is refused rather than answered with 10.
    await expect(
      new CommandHandler(racing, counterAggregate()).handle(
        'moved',
        { by: 0, refuseWhenFull: true },
        meta,
      ),
    ).rejects.toThrow('full');
    expect(await stream('moved')).toEqual([
      [1, 9],
      [2, 1],
    ]);
  });

  it('given concurrent commands on a stream, each one lost is ABORTED and wrote nothing: the projection matches the stream', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => counters().handle('raced', add(1), meta)),
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
    await counters().handle('published', add(2), meta);
    await counters().handle('published', add(3), {
      actor: 'bob',
      requestId: 'published-2',
    });

    expect((await store.readStream('published')).map((e) => e.metadata)).toEqual([
      { actor: 'tester', state: { total: 2 } },
      { actor: 'bob', requestId: 'published-2', state: { total: 5 } },
    ]);
    expect(commits - before).toBe(2);
  });

  it('given a command of several events, stores each with the resource after it', async () => {
    await counters().handle('stepped', { by: 4, steps: 2 }, meta);

    expect((await store.readStream('stepped')).map((e) => e.metadata)).toEqual([
      { actor: 'tester', state: { total: 2 } },
      { actor: 'tester', state: { total: 4 } },
    ]);
    expect(await total('stepped')).toBe(4);
  });

  it('keeps a named answer once, found by its name and by the request id that asked for it', async () => {
    const alone = await counters(undefined, true).handle('named', add(1), meta);
    const withId = await counters(undefined, true).handle('named', add(2), asked('named-2'));

    expect(await store.answerNamed(alone.name!)).toEqual(alone);
    expect(await store.answerNamed(withId.name!)).toEqual(withId);
    expect(await store.previousResponse('named-2')).toEqual(withId);
    const kept = await dataSource.query(
      `SELECT count(*)::integer AS n FROM idempotent_requests WHERE response ->> 'name' = $1`,
      [withId.name],
    );
    expect(kept[0].n).toBe(1);
  });
});

describe('a command over several streams, in one transaction', () => {
  /** Moves `by` from one counter's allowance to another: both streams, or neither. */
  const transfer = (requestId: string, from: string, to: string, by: number, staleTo = false) =>
    store.runOnce(requestId, async (tx) => {
      const handler = counters();
      const [source, target] = [await handler.load(tx, from), await handler.load(tx, to)];
      await handler.append(
        tx,
        from,
        source,
        handler.decide(add(by), source),
        add(by),
        asked(requestId),
      );
      const targetAsSeen = staleTo ? { ...target, version: target.version - 1 } : target;
      return handler.append(
        tx,
        to,
        targetAsSeen,
        handler.decide(add(by), target),
        add(by),
        asked(requestId),
      );
    });

  it('given one stream moved meanwhile, appends to neither and writes nothing', async () => {
    await counters().handle('to-1', add(1), meta);

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
