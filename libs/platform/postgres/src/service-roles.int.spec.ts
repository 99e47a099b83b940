import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { Client } from 'pg';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { openDataSource } from './data-source';
import { scramVerifierMatches } from './scram';
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
  /** Another database on the same server, made before the roles: none of them may connect to it. */
  const other = `${database}_other`;
  const roles: ServiceRole[] = [
    { role: `${database}_alpha`, schema: 'alpha', password: 'alpha-secret' },
    { role: `${database}_beta`, schema: 'beta', password: 'beta-secret' },
  ];
  const [alpha, beta] = roles;
  const urlOf = (user: string, password?: string, name = database) => {
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${name}`;
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
    await server.query(`CREATE DATABASE "${other}"`);
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
    await server.query(`DROP DATABASE IF EXISTS "${other}" WITH (FORCE)`);
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

  /** Whether `role` may log in with `password`, to `name`: undefined when it may, else why not. */
  const loginRefusal = async (role: string, password: string, name = database) => {
    const client = new Client({ connectionString: urlOf(role, password, name) });
    try {
      await client.connect();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  it.each(['postgres', 'template1', 'another database of the server'])(
    "refuses a service's role a connection to %s: it connects to its own database only",
    async (name) => {
      const target = name.startsWith('another') ? other : name;
      expect(await loginRefusal(alpha.role, alpha.password!, target)).toBe(
        `permission denied for database "${target}"`,
      );
      expect(await loginRefusal(alpha.role, alpha.password!)).toBeUndefined();
    },
  );

  // The test server trusts connections from 127.0.0.1 whatever their password, so a password is
  // checked against the verifier Postgres stores, with SCRAM's own computation (scram.ts, whose
  // verifiers are those Postgres computes: scram.unit.spec.ts).
  const storedVerifier = async (role: string) =>
    (
      await admin.query<{ stored: string }>(
        'SELECT rolpassword AS stored FROM pg_authid WHERE rolname = $1',
        [role],
      )
    ).rows[0].stored;

  it('sends passwords as SCRAM verifiers, never as themselves; a role that changed its own password has it reset, and is told apart', async () => {
    // Postgres lets any role change its own password (ALTER ROLE has no privilege to withhold it):
    const [alphaSource] = opened;
    await alphaSource.query(`ALTER ROLE CURRENT_USER PASSWORD 'changed-by-alpha'`);
    expect(scramVerifierMatches(await storedVerifier(alpha.role), 'changed-by-alpha')).toBe(true);

    // The next provisioning run finds it, and sets the provisioned password again.
    const sent: string[] = [];
    const capturing = new Client({ connectionString: urlOf(new URL(TEST_POSTGRES_URL).username) });
    await capturing.connect();
    const query = capturing.query.bind(capturing) as (...args: unknown[]) => Promise<unknown>;
    capturing.query = ((...args: unknown[]) => {
      const [statement] = args;
      sent.push(typeof statement === 'string' ? statement : JSON.stringify(statement));
      if (args.length > 1) sent.push(JSON.stringify(args[1]));
      return query(...args);
    }) as typeof capturing.query;
    try {
      expect(await provisionServiceRoles(capturing, roles)).toEqual([
        { role: alpha.role, schema: 'alpha', password: 'reset' },
        { role: beta.role, schema: 'beta', password: 'kept' },
      ]);
    } finally {
      await capturing.end();
    }
    for (const secret of ['alpha-secret', 'beta-secret', 'changed-by-alpha'])
      expect(sent.filter((statement) => statement.includes(secret))).toEqual([]);
    const setting = sent.filter((statement) => statement.includes(' PASSWORD '));
    expect(setting).toEqual([
      expect.stringMatching(
        new RegExp(`^ALTER ROLE "${alpha.role}" PASSWORD 'SCRAM-SHA-256\\$4096:[^']+'$`),
      ),
    ]);
    // Postgres keeps the verifier as sent, and it is the provisioned password's.
    const stored = await storedVerifier(alpha.role);
    expect(setting[0]).toBe(`ALTER ROLE "${alpha.role}" PASSWORD '${stored}'`);
    expect(scramVerifierMatches(stored, alpha.password!)).toBe(true);
    expect(scramVerifierMatches(stored, 'changed-by-alpha')).toBe(false);
  });
});
