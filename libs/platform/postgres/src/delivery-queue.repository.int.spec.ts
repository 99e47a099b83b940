import { TEST_POSTGRES_URL, removeTestResources, uniqueName } from '@rollout/testing/kit';
import { Pool } from 'pg';
import { DeliveryQueue } from './delivery-queue.repository';

/** A claim's rows come in no particular order. */
const byTopic = <T extends { topic: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.topic.localeCompare(b.topic));

interface Note {
  id: string;
  topic: string;
  body: string;
  owed: string[] | null;
  attempts: number;
}

/** A queue of notes to deliver, in a schema of this run, claimed by two "replicas" (two pools). */
describe('DeliveryQueue', () => {
  const schema = uniqueName('it_');
  const CLAIM_MS = 60_000;
  const t0 = new Date('2026-12-01T00:00:00Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);
  const pools: Pool[] = [];
  const open = () => {
    const pool = new Pool({
      connectionString: TEST_POSTGRES_URL,
      options: `-c search_path=${schema}`,
      max: 3,
    });
    pools.push(pool);
    return new DeliveryQueue<Note>(
      pool,
      {
        name: 'notes',
        key: ['id'],
        unique: ['topic'],
        payload: ['topic', 'body', 'owed'],
        abandons: true,
      },
      CLAIM_MS,
    );
  };
  let queue: DeliveryQueue<Note>;
  let replica: DeliveryQueue<Note>;
  let admin: Pool;

  beforeAll(async () => {
    queue = open();
    replica = open();
    admin = pools[0];
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".notes (
      id bigserial PRIMARY KEY, topic text NOT NULL UNIQUE, body text NOT NULL, owed text[],
      attempts int NOT NULL, next_attempt_at timestamptz NOT NULL, last_error text,
      created_at timestamptz NOT NULL, abandoned_at timestamptz)`);
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await removeTestResources({ schema });
  });

  beforeEach(async () => {
    await admin.query('TRUNCATE notes');
  });

  it('claims what is due, once per claim; an enqueue of the same thing adds nothing', async () => {
    expect(await queue.enqueue({ topic: 'b', body: 'second' }, at(2), t0)).toBe(true);
    expect(await queue.enqueue({ topic: 'a', body: 'first' }, at(1), t0)).toBe(true);
    expect(await queue.enqueue({ topic: 'c', body: 'later' }, at(5_000), t0)).toBe(true);
    expect(await queue.enqueue({ topic: 'a', body: 'again' }, at(0), t0)).toBe(false);

    const claimed = await queue.claimDue(at(10), 10);
    expect(byTopic(claimed).map((n) => [n.topic, n.body, n.attempts])).toEqual([
      ['a', 'first', 0],
      ['b', 'second', 0],
    ]);
    expect(await replica.claimDue(at(10), 10)).toEqual([]);
    // The claim lapses: a replica that died mid-attempt leaves its rows to the others.
    const reclaimed = await replica.claimDue(at(10 + CLAIM_MS), 10);
    expect(byTopic(reclaimed).map((n) => n.topic)).toEqual(['a', 'b', 'c']);
  });

  it('holds no row lock once a claim returns, so the row can be settled while its delivery runs', async () => {
    await queue.enqueue({ topic: 'slow', body: 'x' }, t0, t0);
    const [claimed] = await queue.claimDue(t0, 1);
    // Another connection takes the row's lock without waiting (NOWAIT fails on a held lock).
    const locked = await admin.query('SELECT id FROM notes WHERE id = $1 FOR UPDATE NOWAIT', [
      claimed.id,
    ]);
    expect(locked.rows).toEqual([{ id: claimed.id }]);
  });

  it('never gives one row to two replicas claiming together', async () => {
    for (let i = 0; i < 40; i++) await queue.enqueue({ topic: `n${i}`, body: 'x' }, t0, t0);
    const [mine, theirs] = await Promise.all([queue.claimDue(t0, 25), replica.claimDue(t0, 25)]);
    const ids = [...mine, ...theirs].map((n) => n.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('retries at a time with what is still owed, abandons out of the claims and the count, and forgets what was delivered', async () => {
    await queue.enqueue({ topic: 'r', body: 'x' }, t0, t0);
    await queue.enqueue({ topic: 'gone', body: 'x' }, t0, t0);
    await queue.enqueue({ topic: 'done', body: 'x' }, t0, t0);
    const [done, gone, r] = byTopic(await queue.claimDue(t0, 3));
    await queue.retryAt(
      { id: r.id },
      { attempts: 1, lastError: 'down', set: { owed: ['ExternalService'] } },
      at(500),
    );
    await queue.abandon({ id: gone.id }, { attempts: 20, lastError: 'down for good' }, t0);
    await queue.done({ id: done.id });
    expect(await queue.countPending()).toBe(1);
    expect(await queue.claimDue(at(499), 10)).toEqual([]);
    expect(await queue.claimDue(at(500), 10)).toEqual([
      { id: r.id, topic: 'r', body: 'x', owed: ['ExternalService'], attempts: 1 },
    ]);
    const kept = await admin.query(
      'SELECT topic, attempts, last_error, abandoned_at FROM notes ORDER BY topic',
    );
    expect(kept.rows).toEqual([
      { topic: 'gone', attempts: 20, last_error: 'down for good', abandoned_at: t0 },
      { topic: 'r', attempts: 1, last_error: 'down', abandoned_at: null },
    ]);
  });

  it('enqueues in the caller transaction, and refuses columns the table does not have', async () => {
    const client = await pools[0].connect();
    try {
      await client.query('BEGIN');
      const statement = queue.enqueueStatement({ topic: 'tx', body: 'x' }, t0, t0);
      expect((await client.query(statement.text, statement.values)).rows).toHaveLength(1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await queue.countPending()).toBe(0);
    expect(() => queue.enqueueStatement({ topic: 't', colour: 'red' }, t0, t0)).toThrow(
      'notes has no column colour',
    );
    await expect(
      queue.retryAt({ id: '1' }, { attempts: 1, lastError: 'x', set: { colour: 'red' } }, t0),
    ).rejects.toThrow('notes has no payload column colour');
  });
});
