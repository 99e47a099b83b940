import { TEST_POSTGRES_URL, eventually, freePort, uniqueName } from '@rollout/testing/kit';
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { startParent } from './__fixtures__/spawn-parent';
import { ensurePostgres } from './postgres';
import { LaunchError, StartedDependency, isAlive, portAnswers } from './processes';
import { withDatabase } from './settings';

async function scalar<T>(url: string, sql: string, params: unknown[] = []): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return Object.values((await client.query(sql, params)).rows[0] ?? {})[0] as T;
  } finally {
    await client.end();
  }
}

/** Postgres as `npm start` handles it: used when it runs, else an embedded one; the database made if missing. */
describe('Postgres for the launcher', () => {
  const started: StartedDependency[] = [];
  const databases: string[] = [];
  afterEach(async () => {
    for (const dependency of started.splice(0)) await dependency.stop();
  });
  afterAll(async () => {
    for (const database of databases)
      await scalar(TEST_POSTGRES_URL, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  it('uses the Postgres that already runs and creates the database once', async () => {
    const database = uniqueName('it_launcher_');
    databases.push(database);
    const url = withDatabase(TEST_POSTGRES_URL, database);
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    expect(await ensurePostgres(url, { log, stopTimeoutMs: 5_000 })).toBeUndefined();
    expect(await scalar(url, 'SELECT current_database()')).toBe(database);
    expect(await ensurePostgres(url, { log, stopTimeoutMs: 5_000 })).toBeUndefined(); // it exists now: fine
    expect(lines.filter((line) => line.startsWith('Postgres: created'))).toEqual([
      `Postgres: created the database ${database}`,
    ]);
  });

  it('reports a server that answers but will not let us in, instead of starting another', async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.username = uniqueName('nobody_');
    await expect(
      ensurePostgres(url.toString(), { log: () => undefined, stopTimeoutMs: 5_000 }),
    ).rejects.toThrow(
      new RegExp(
        `^cannot use the Postgres server of DATABASE_URL .*role "${url.username}" does not exist`,
      ),
    );
  });

  it('starts an embedded Postgres where nothing answers, with the database, and stop() removes it', async () => {
    const port = await freePort();
    const url = `postgres://postgres@127.0.0.1:${port}/policy_rollout`;
    const lines: string[] = [];
    const postgres = await ensurePostgres(url, {
      log: (line) => lines.push(line),
      stopTimeoutMs: 10_000,
    });
    expect(postgres).toBeDefined();
    started.push(postgres!);
    const dataDir = /\(data in (\S+)\)/.exec(lines.join('\n'))![1];
    const pids = postgres!.pids();
    expect(pids).toHaveLength(2); // the wrapper process and the postmaster

    // DATABASE_URL works as it is, and so does any password (a local throwaway server).
    expect(await scalar(url, 'SELECT current_database()')).toBe('policy_rollout');
    expect(
      await scalar(
        `postgres://postgres:anything@127.0.0.1:${port}/policy_rollout`,
        'SELECT 1 AS one',
      ),
    ).toBe(1);

    await postgres!.stop();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('leaves no Postgres behind when the process that started it is SIGKILLed', async () => {
    const port = await freePort();
    const { parent, pids } = await startParent('postgres', port);
    expect(pids).toHaveLength(2);
    expect(await scalar(`postgres://postgres@127.0.0.1:${port}/postgres`, 'SELECT 1 AS one')).toBe(
      1,
    );

    parent.kill('SIGKILL');

    await eventually(() => (pids.some(isAlive) ? undefined : true), {
      timeoutMs: 15_000,
      what: 'the embedded Postgres gone after its parent was SIGKILLed',
    });
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
  }, 60_000);

  it('does not start a server for a DATABASE_URL on another machine', async () => {
    const lines: string[] = [];
    const attempt = ensurePostgres('postgres://postgres@192.0.2.1:5432/policy_rollout', {
      log: (line) => lines.push(line),
      stopTimeoutMs: 5_000,
    });
    await expect(attempt).rejects.toThrow(LaunchError);
    await expect(attempt).rejects.toThrow(
      /^(nothing answers at|cannot use the Postgres server of) DATABASE_URL postgres:\/\/postgres@192\.0\.2\.1:5432\/policy_rollout/,
    );
    expect(lines.join('\n')).not.toContain('starting an embedded Postgres');
  }, 15_000);
});
