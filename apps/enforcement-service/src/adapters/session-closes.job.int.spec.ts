import { type AdapterStatus, OK_STATUS } from '@rollout/contracts';
import { TEST_POSTGRES_URL, eventually } from '@rollout/testing/kit';
import { Client } from 'pg';
import { enforcementServiceSystem } from '../../test/enforcement-service-system';

/**
 * A CloseSession the adapter did not acknowledge is kept in `adapter_session_closes` and tried
 * again; while a retry waits for the adapter, the row is claimed by time, not locked, so nothing
 * else touching the queue waits on the adapter. The adapter is a few lines of the raw `nats`
 * client on the real server: it refuses the first close and holds the answer to the second.
 */
const UNAVAILABLE: AdapterStatus = {
  code: 503,
  status: 'UNAVAILABLE',
  message: 'busy',
  details: [],
};

describe('adapter session closes kept for a retry', () => {
  const system = enforcementServiceSystem({
    // The first close is refused (kept for a retry); the second waits for the test (a busy
    // machine may see it time out: later ones are acknowledged at once).
    closeSession: (nth) => (nth === 1 ? UNAVAILABLE : nth === 2 ? 'hold' : OK_STATUS),
    env: { ENFORCEMENT_RETRY_BASE_MS: '100', ENFORCEMENT_RETRY_POLL_INTERVAL_MS: '100' },
  });
  const { schema } = system;
  const closes = () => system.sessions.filter((s) => s.startsWith('close')).length;
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: TEST_POSTGRES_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
  });

  it('holds no row lock while a retried CloseSession waits for the adapter, and forgets the close once acknowledged', async () => {
    system.writeChain(2);
    system.service.child.kill('SIGHUP');
    await eventually(() => (closes() === 2 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the retried close',
    });
    // The retry is waiting for its answer now: the row can be locked at once (NOWAIT fails on a
    // lock held by the retry pass).
    await db.query('BEGIN');
    const row = await db.query(
      `SELECT session_id, attempts FROM "${schema}".adapter_session_closes FOR UPDATE NOWAIT`,
    );
    await db.query('COMMIT');
    expect(row.rows).toEqual([{ session_id: 's1', attempts: expect.any(Number) }]);

    system.releaseCloses();
    await eventually(
      async () =>
        (await db.query(`SELECT 1 FROM "${schema}".adapter_session_closes`)).rowCount === 0
          ? true
          : undefined,
      { timeoutMs: 15_000, what: 'the close forgotten' },
    );
  });
});
