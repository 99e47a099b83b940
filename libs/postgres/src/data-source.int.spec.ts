import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { openDataSource } from './data-source';

class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(runner: QueryRunner) {
    // Unqualified names land in the service's own schema (search_path).
    await runner.query('CREATE TABLE widgets (id int PRIMARY KEY, created_by text NOT NULL DEFAULT current_setting($$application_name$$))');
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
    const replicas = await Promise.all([open([CreateWidgets1700000000000], 'a'), open([CreateWidgets1700000000000], 'b'), open([CreateWidgets1700000000000], 'c')]);
    opened.push(...replicas);
    const rows = await replicas[0].query(`SELECT id FROM "${schema}".widgets`);
    expect(rows).toEqual([{ id: 1 }]);
    const applied = await replicas[1].query(`SELECT name FROM "${schema}".migrations`);
    expect(applied).toEqual([{ name: 'CreateWidgets1700000000000' }]);
  });

  it('applies only the new migrations on the next start and keeps the data', async () => {
    const next = await open([CreateWidgets1700000000000, AddColour1700000000001]);
    opened.push(next);
    await expect(next.query('SELECT id, colour FROM widgets')).resolves.toEqual([{ id: 1, colour: 'red' }]);
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(
      openDataSource({ url: TEST_POSTGRES_URL, schema: 'x"; DROP SCHEMA public; --', poolSize: 1, applicationName: 't', migrations: [] }),
    ).rejects.toThrow('invalid schema name');
  });

  it('says where it failed to connect, without the password', async () => {
    await expect(
      openDataSource({ url: 'postgres://postgres:hunter2@127.0.0.1:1/x', schema: 'x', poolSize: 1, applicationName: 't', migrations: [] }),
    ).rejects.toThrow(/^cannot connect to Postgres at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x: /);
  });
});
