import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { Client } from 'pg';
import { P, allowSsh, denyNet, previewSystem } from '../../test/preview-system';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A read another service answers sees every change its client was already told is done: a
 * backtest asked right after a create finds the experiment, under traffic, every time; and when
 * the evaluator cannot catch up within its bound, the answer is UNAVAILABLE with a retry hint,
 * never NOT_FOUND for an experiment that exists.
 */
describe('read your own writes across services', () => {
  // A database of its own for the experiment-service: the test holds its state relay's lock
  // (an advisory lock, which is per database) without stalling any other run's relay.
  const database = uniqueName('ryw_');
  const databaseUrl = Object.assign(new URL(TEST_POSTGRES_URL), { pathname: `/${database}` });
  const admin = () => new Client({ connectionString: TEST_POSTGRES_URL });
  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE "${database}"`);
    await client.end();
  });

  const { call, respond, publishTraffic, trafficEvent } = previewSystem({
    experimentEnv: { DATABASE_URL: databaseUrl.toString() },
  });

  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
  });

  const experiments = `${P}/edge/experiments`;
  const create = (id: string) =>
    call('POST', `${experiments}?experimentId=${id}`, {
      firewallPolicy: { rules: [denyNet, allowSsh] },
    });

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
  });

  it('creates then backtests at once 500 times under traffic, and never gets a 404', async () => {
    let streaming = true;
    const traffic = (async () => {
      for (let i = 0; streaming; i++) {
        await publishTraffic(
          'edge',
          Array.from({ length: 5 }, (_, k) => trafficEvent(`10.0.${1 + (k % 3)}.${i % 250}`)),
        );
        await sleep(50);
      }
    })();
    const answers = new Map<number, number>();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 500; i++) {
        const id = `e-${i}`;
        const created = await create(id);
        expect(created.status).toBe(200);
        // The last seconds of traffic only: what is asked is the experiment, not the replay.
        const backtest = await call('POST', `${experiments}/${id}:backtest`, {
          startTime: new Date(Date.now() - 2_000).toISOString(),
        });
        answers.set(backtest.status, (answers.get(backtest.status) ?? 0) + 1);
        if (backtest.status !== 200)
          failures.push(`${id}: ${backtest.status} ${JSON.stringify(backtest.body).slice(0, 300)}`);
        // At most 10 experiments per live policy: each goes once its backtest is asked.
        expect((await call('DELETE', `${experiments}/${id}`)).status).toBe(200);
      }
    } finally {
      streaming = false;
      await traffic;
    }
    expect(failures.slice(0, 3)).toEqual([]);
    expect(answers.get(404) ?? 0).toBe(0);
    expect(answers.get(200)).toBe(500);
  }, 600_000);

  it('answers UNAVAILABLE with Retry-After while the evaluator cannot see the change, then finds it', async () => {
    // Holding the state relay's lock keeps the create from reaching EXPERIMENT_STATE.
    const relayLock = new Client({ connectionString: databaseUrl.toString() });
    await relayLock.connect();
    try {
      await relayLock.query(`SELECT pg_advisory_lock(hashtext('relay:EXPERIMENT_STATE'))`);
      expect((await create('held')).status).toBe(200);

      const backtest = await respond('POST', `${experiments}/held:backtest`);
      expect(backtest.status).toBe(503);
      expect(backtest.headers.get('retry-after')).toBe('1');
      expect(backtest.body.error).toMatchObject({
        status: 'UNAVAILABLE',
        message: expect.stringContaining('not yet seen every change'),
        details: expect.arrayContaining([
          expect.objectContaining({ reason: 'STATE_NOT_YET_APPLIED' }),
        ]),
      });
      const report = await call('GET', `${experiments}/held/previewReport`);
      expect(report.status).toBe(503);
      expect(report.body.error.status).toBe('UNAVAILABLE');
    } finally {
      await relayLock.end(); // the session's end releases the lock
    }
    const backtest = await call('POST', `${experiments}/held:backtest`);
    expect(backtest.status).toBe(200);
    expect(backtest.body.metadata).toMatchObject({ verb: 'backtest' });
  }, 60_000);
});
