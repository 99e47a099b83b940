import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { Client } from 'pg';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { openDataSource } from './data-source';
import { ServiceRole, provisionServiceRoles } from './service-roles';

class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';
  async up(runner: QueryRunner) {
    await runner.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
  }
  async down(runner: QueryRunner) {
    await runner.query('DROP TABLE notes');
  }
}

/** Two services, each with its own role and schema, in a database of this run. */
describe('a Postgres role per service', () => {
  const database = uniqueName('it_roles_');
  const roles: ServiceRole[] = [
    { role: `${database}_alpha`, schema: 'alpha', password: 'alpha-secret' },
    { role: `${database}_beta`, schema: 'beta', password: 'beta-secret' },
  ];
  const [alpha, beta] = roles;
  const urlOf = (user: string, password?: string) => {
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${database}`;
    url.username = user;
    url.password = password ?? '';
    return url.toString();
  };
  const open = (role: ServiceRole) =>
    openDataSource({
      url: urlOf(role.role),
      password: role.password,
      schema: role.schema,
      poolSize: 2,
      applicationName: role.schema,
      migrations: [CreateNotes1700000000000],
    });
  let admin: Client;
  const opened: DataSource[] = [];

  beforeAll(async () => {
    const server = new Client({ connectionString: TEST_POSTGRES_URL });
    await server.connect();
    await server.query(`CREATE DATABASE "${database}"`);
    await server.end();
    admin = new Client({ connectionString: urlOf(new URL(TEST_POSTGRES_URL).username) });
    await admin.connect();
    // An install from before roles per service: beta's schema and a table, made by the admin.
    await admin.query('CREATE SCHEMA beta');
    await admin.query('CREATE TABLE beta.legacy (id bigserial PRIMARY KEY, body text)');
    await provisionServiceRoles(admin, roles);
    // Provisioning runs at every start: a second run changes nothing.
    await provisionServiceRoles(admin, roles);
    opened.push(await open(alpha), await open(beta));
  });

  afterAll(async () => {
    await Promise.all(opened.map((d) => d.destroy()));
    await admin?.end();
    const server = new Client({ connectionString: TEST_POSTGRES_URL });
    await server.connect();
    await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const { role } of roles) await server.query(`DROP ROLE IF EXISTS "${role}"`);
    await server.end();
  });

  it("runs each service's migrations in its own schema, as its own role, and serves its queries", async () => {
    const [alphaSource, betaSource] = opened;
    await alphaSource.query(`INSERT INTO notes (body) VALUES ('mine')`);
    expect(await alphaSource.query('SELECT body FROM notes')).toEqual([{ body: 'mine' }]);
    expect(await alphaSource.query('SELECT name FROM migrations')).toEqual([
      { name: 'CreateNotes1700000000000' },
    ]);
    expect(await alphaSource.query('SELECT current_user AS who')).toEqual([{ who: alpha.role }]);
    const [owner] = (
      await admin.query(
        `SELECT tableowner FROM pg_tables WHERE schemaname = 'alpha' AND tablename = 'notes'`,
      )
    ).rows;
    expect(owner).toEqual({ tableowner: alpha.role });
    // What the admin had made in beta's schema is beta's now.
    await betaSource.query(`INSERT INTO legacy (body) VALUES ('kept')`);
    expect(await betaSource.query('SELECT body FROM legacy')).toEqual([{ body: 'kept' }]);
  });

  it.each([
    ['read', 'SELECT * FROM beta.notes'],
    ['write', `INSERT INTO beta.notes (body) VALUES ('theirs')`],
    ['read the old tables of', 'SELECT * FROM beta.legacy'],
  ])("refuses a service's role to %s another service's schema", async (_, sql) => {
    await expect(opened[0].query(sql)).rejects.toThrow('permission denied for schema beta');
    expect((await admin.query('SELECT count(*)::int AS n FROM beta.notes')).rows).toEqual([
      { n: 0 },
    ]);
  });

  it.each([
    ['create a schema', 'CREATE SCHEMA gamma', 'permission denied for database'],
    [
      'create a table in public',
      'CREATE TABLE public.spy (id int)',
      'permission denied for schema public',
    ],
    [
      'take over a schema',
      'ALTER SCHEMA beta OWNER TO CURRENT_USER',
      'must be owner of schema beta',
    ],
    ['create a role', 'CREATE ROLE spy', 'permission denied to create role'],
  ])("refuses a service's role to %s", async (_, sql, refusal) => {
    await expect(opened[0].query(sql)).rejects.toThrow(refusal);
  });

  it('tells a service whose schema was not provisioned what to do', async () => {
    await expect(
      openDataSource({
        url: urlOf(alpha.role),
        schema: 'unprovisioned',
        poolSize: 1,
        applicationName: 'lost',
        migrations: [],
      }),
    ).rejects.toThrow(
      /the schema "unprovisioned" does not exist and this role cannot create it \(permission denied for database .*\): provision it first/,
    );
  });
});
