import type { ClientBase } from 'pg';

/** One service's Postgres identity: the role it logs in as and the one schema that role owns. */
export interface ServiceRole {
  role: string;
  schema: string;
  /** Set (or reset) the role's password; unset: leave it as it is (CloudNativePG sets it). */
  password?: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Only plain identifiers are quoted into DDL. */
function identifier(kind: string, name: string): string {
  if (!IDENTIFIER.test(name))
    throw new Error(`invalid ${kind} name "${name}": must match [a-z_][a-z0-9_]{0,62}`);
  return `"${name}"`;
}

const OWNED_KINDS: Record<string, string> = {
  r: 'TABLE',
  p: 'TABLE',
  f: 'FOREIGN TABLE',
  v: 'VIEW',
  m: 'MATERIALIZED VIEW',
  S: 'SEQUENCE',
};

/**
 * Gives each service its own login role owning its own schema, and nothing else, in the
 * database `client` is connected to (as a superuser). Idempotent: run at every start by the
 * launcher and by the Kubernetes provisioning Job. A role also takes over every table, view and
 * sequence already in its schema (an install from before roles per service, where one role owned
 * all), and PUBLIC loses its rights on the service schemas, on `public` and to connect, so no
 * service sees another's schema, even by name.
 */
export async function provisionServiceRoles(
  client: ClientBase,
  roles: readonly ServiceRole[],
): Promise<void> {
  const duplicate = (key: 'role' | 'schema') =>
    roles.find((r, i) => roles.findIndex((other) => other[key] === r[key]) !== i);
  const twice = duplicate('role') ?? duplicate('schema');
  if (twice) throw new Error(`each service needs a role and a schema of its own (${twice.role})`);

  await client.query('BEGIN');
  try {
    // Two provisioning runs at once (replicas of a Job, two launchers) take turns.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('provision service roles'))`);
    const database = identifier(
      'database',
      ((await client.query('SELECT current_database() AS name')).rows[0] as { name: string }).name,
    );
    await client.query(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
    await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    for (const { role, schema, password } of roles) {
      const r = identifier('role', role);
      const s = identifier('schema', schema);
      const existing = await client.query<{
        rolsuper: boolean;
        rolcreaterole: boolean;
        rolcreatedb: boolean;
        rolbypassrls: boolean;
      }>(
        'SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = $1',
        [role],
      );
      const [found] = existing.rows;
      if (!found) await client.query(`CREATE ROLE ${r} LOGIN`);
      else if (found.rolsuper || found.rolcreaterole || found.rolcreatedb || found.rolbypassrls)
        throw new Error(
          `the role ${role} exists with more than a service may have (superuser, createrole, createdb or bypassrls); drop those first`,
        );
      else await client.query(`ALTER ROLE ${r} LOGIN`);
      if (password !== undefined)
        await client.query(`ALTER ROLE ${r} PASSWORD ${client.escapeLiteral(password)}`);
      await client.query(`GRANT CONNECT ON DATABASE ${database} TO ${r}`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${r}`);
      await client.query(`ALTER SCHEMA ${s} OWNER TO ${r}`);
      await client.query(`REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`);
      await takeOwnership(client, schema, role);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** What another role created in the schema becomes the service's (a sequence follows its table). */
async function takeOwnership(client: ClientBase, schema: string, role: string): Promise<void> {
  const { rows } = await client.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind AS kind
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relowner <> $2::regrole
        AND c.relkind IN ('r', 'p', 'f', 'v', 'm', 'S')
        AND NOT (c.relkind = 'S' AND EXISTS (
          SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
      ORDER BY c.relkind <> 'r'`,
    [schema, role],
  );
  for (const { name, kind } of rows) {
    const quoted = `"${schema}"."${name.replace(/"/g, '""')}"`;
    await client.query(`ALTER ${OWNED_KINDS[kind]} ${quoted} OWNER TO "${role}"`);
  }
}
