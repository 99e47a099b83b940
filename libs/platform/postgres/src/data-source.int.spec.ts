import { TEST_POSTGRES_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { Client } from 'pg';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { openDataSource } from './data-source';

class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(runner: QueryRunner) {
    // Unqualified names land in the service's own schema (search_path).
    await runner.query(
      'CREATE TABLE widgets (id int PRIMARY KEY, created_by text NOT NULL DEFAULT current_setting($$application_name$$))',
    );
    await runner.query('INSERT INTO widgets (id) VALUES (1)');
  }
  async down(runner: QueryRunner) {
    await runner.query('DROP TABLE widgets');
  }
}

class AddColour1700000000001 implements MigrationInterface {
  name = 'AddColour1700000000001';
  async up(runner: QueryRunner) {
    await runner.query(`ALTER TABLE widgets ADD COLUMN colour text NOT NULL DEFAULT 'red'`);
  }
  async down(runner: QueryRunner) {
    await runner.query('ALTER TABLE widgets DROP COLUMN colour');
  }
}

describe('openDataSource', () => {
  const schema = uniqueName('it_');
  const open = (migrations: (new () => MigrationInterface)[], applicationName = 'widgets') =>
    openDataSource({ url: TEST_POSTGRES_URL, schema, poolSize: 2, applicationName, migrations });
  const opened: DataSource[] = [];

  afterAll(async () => {
    const admin = await open([]);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await Promise.all([admin, ...opened].filter((d) => d.isInitialized).map((d) => d.destroy()));
  });

  it('creates the schema and applies migrations once, even when replicas start together', async () => {
    const replicas = await Promise.all([
      open([CreateWidgets1700000000000], 'a'),
      open([CreateWidgets1700000000000], 'b'),
      open([CreateWidgets1700000000000], 'c'),
    ]);
    opened.push(...replicas);
    const rows = await replicas[0].query(`SELECT id FROM "${schema}".widgets`);
    expect(rows).toEqual([{ id: 1 }]);
    const applied = await replicas[1].query(`SELECT name FROM "${schema}".migrations`);
    expect(applied).toEqual([{ name: 'CreateWidgets1700000000000' }]);
  });

  it('applies only the new migrations on the next start and keeps the data', async () => {
    const next = await open([CreateWidgets1700000000000, AddColour1700000000001]);
    opened.push(next);
    await expect(next.query('SELECT id, colour FROM widgets')).resolves.toEqual([
      { id: 1, colour: 'red' },
    ]);
  });

  it('survives Postgres cutting its connections in the middle of transactions, again and again', async () => {
    const applicationName = uniqueName('cut_');
    const dataSource = await openDataSource({
      url: TEST_POSTGRES_URL,
      schema,
      poolSize: 8,
      applicationName,
      migrations: [],
    });
    opened.push(dataSource);
    let running = true;
    const outcomes = { committed: 0, cut: 0 };
    const worker = async () => {
      while (running) {
        const runner = dataSource.createQueryRunner();
        try {
          await runner.connect();
          await runner.startTransaction();
          await runner.query('SELECT pg_sleep(0.002)');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          await runner.query('SELECT 1');
          await runner.commitTransaction();
          outcomes.committed++;
        } catch {
          outcomes.cut++;
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        } finally {
          await runner.release().catch(() => undefined);
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    const admin = new Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      // Before the fix, an 'error' event with no listener ended the process within a few rounds.
      for (let round = 0; round < 40; round++) {
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [applicationName],
        );
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    } finally {
      running = false;
      await Promise.all(workers);
      await admin.end();
    }
    expect(outcomes.cut).toBeGreaterThan(0);
    expect(outcomes.committed).toBeGreaterThan(0);
    // Once the cuts stop, queries work again (a client cut at the last moment is dropped first).
    expect(
      await eventually(() => dataSource.query('SELECT 1 AS one').catch(() => undefined), {
        timeoutMs: 5_000,
        what: 'a query after the cuts',
      }),
    ).toEqual([{ one: 1 }]);
  }, 30_000);

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(
      openDataSource({
        url: TEST_POSTGRES_URL,
        schema: 'x"; DROP SCHEMA public; --',
        poolSize: 1,
        applicationName: 't',
        migrations: [],
      }),
    ).rejects.toThrow('invalid schema name');
  });

  it('says where it failed to connect, without the password', async () => {
    await expect(
      openDataSource({
        url: 'postgres://postgres:hunter2@127.0.0.1:1/x',
        schema: 'x',
        poolSize: 1,
        applicationName: 't',
        migrations: [],
      }),
    ).rejects.toThrow(
      /^cannot connect to Postgres at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x: /,
    );
  });
});
