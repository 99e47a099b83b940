import type { ClientBase } from 'pg';
import {
  CURRENT_DATABASE,
  OTHER_CONNECTABLE_DATABASES,
  PROVISIONING_LOCK,
  RELATIONS_OWNED_BY_OTHERS,
  ROLE_POWERS,
  STORED_PASSWORD,
} from './postgres-statements';
import { scramVerifier, scramVerifierMatches } from './scram';

export interface ServiceRole {
  role: string;
  schema: string;
  /** Unset: left as it is (CloudNativePG sets it). Printable ASCII. */
  password?: string;
}

/** `reset`: it was changed since the last run (by the role itself or by hand), or a new one is provisioned. */
export type PasswordOutcome = 'set' | 'kept' | 'reset' | 'untouched';

export interface ProvisionedRole {
  role: string;
  schema: string;
  password: PasswordOutcome;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

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
 * Idempotent: run at every start by the launcher and the provisioning Job. A role also takes
 * over what is already in its schema (installs from before roles per service). PUBLIC loses
 * its rights on the service schemas, on `public` and to connect elsewhere, so no service sees
 * another's schema; a password changed by the role itself is reset, and said so.
 */
export async function provisionServiceRoles(
  client: ClientBase,
  roles: readonly ServiceRole[],
): Promise<ProvisionedRole[]> {
  const duplicate = (key: 'role' | 'schema') =>
    roles.find((r, i) => roles.findIndex((other) => other[key] === r[key]) !== i);
  const twice = duplicate('role') ?? duplicate('schema');
  if (twice) throw new Error(`each service needs a role and a schema of its own (${twice.role})`);

  await client.query('BEGIN');
  try {
    await client.query(PROVISIONING_LOCK);
    const database = identifier(
      'database',
      ((await client.query(CURRENT_DATABASE)).rows[0] as { name: string }).name,
    );
    await changeDatabaseAcl(client, `REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
    await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    const provisioned: ProvisionedRole[] = [];
    for (const { role, schema, password } of roles) {
      const r = identifier('role', role);
      const s = identifier('schema', schema);
      const existing = await client.query<{
        rolsuper: boolean;
        rolcreaterole: boolean;
        rolcreatedb: boolean;
        rolbypassrls: boolean;
      }>(ROLE_POWERS, [role]);
      const [found] = existing.rows;
      if (!found) await client.query(`CREATE ROLE ${r} LOGIN`);
      else if (found.rolsuper || found.rolcreaterole || found.rolcreatedb || found.rolbypassrls)
        throw new Error(
          `the role ${role} exists with more than a service may have (superuser, createrole, createdb or bypassrls); drop those first`,
        );
      else await client.query(`ALTER ROLE ${r} LOGIN`);
      provisioned.push({ role, schema, password: await setPassword(client, role, password) });
      await changeDatabaseAcl(client, `GRANT CONNECT ON DATABASE ${database} TO ${r}`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${r}`);
      await client.query(`ALTER SCHEMA ${s} OWNER TO ${r}`);
      await client.query(`REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`);
      await takeOwnership(client, schema, role);
    }
    await revokeOtherDatabases(
      client,
      roles.map(({ role }) => role),
    );
    await client.query('COMMIT');
    return provisioned;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Computed here, so neither the statement nor Postgres's statement log holds the password. */
async function setPassword(
  client: ClientBase,
  role: string,
  password: string | undefined,
): Promise<PasswordOutcome> {
  if (password === undefined) return 'untouched';
  const { rows } = await client.query<{ stored: string | null }>(STORED_PASSWORD, [role]);
  const stored = rows[0]?.stored ?? null;
  if (scramVerifierMatches(stored, password)) return 'kept';
  const verifier = scramVerifier(password);
  await client.query(
    `ALTER ROLE ${identifier('role', role)} PASSWORD ${client.escapeLiteral(verifier)}`,
  );
  return stored === null ? 'set' : 'reset';
}

/** Superusers keep connecting anywhere; another role that needs one of those databases must be granted CONNECT. */
async function revokeOtherDatabases(client: ClientBase, roles: string[]): Promise<void> {
  const { rows } = await client.query<{ name: string }>(OTHER_CONNECTABLE_DATABASES, [roles]);
  const from = ['PUBLIC', ...roles.map((role) => identifier('role', role))].join(', ');
  for (const { name } of rows)
    await changeDatabaseAcl(
      client,
      `REVOKE CONNECT ON DATABASE ${client.escapeIdentifier(name)} FROM ${from}`,
    );
}

const UNDEFINED_DATABASE = '3D000';
const ACL_ATTEMPTS = 5;

/**
 * In a savepoint: a concurrent change of the same database's privileges makes Postgres refuse
 * with "tuple concurrently updated", so it is retried on what that one committed.
 */
async function changeDatabaseAcl(client: ClientBase, sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await client.query('SAVEPOINT database_acl');
    try {
      await client.query(sql);
      await client.query('RELEASE SAVEPOINT database_acl');
      return;
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT database_acl');
      const { code, message } = error as { code?: string; message?: string };
      if (code === UNDEFINED_DATABASE) return;
      if (attempt < ACL_ATTEMPTS && /tuple concurrently updated/.test(message ?? '')) continue;
      throw error;
    }
  }
}

async function takeOwnership(client: ClientBase, schema: string, role: string): Promise<void> {
  const { rows } = await client.query<{ name: string; kind: string }>(RELATIONS_OWNED_BY_OTHERS, [
    schema,
    role,
  ]);
  for (const { name, kind } of rows) {
    const quoted = `"${schema}"."${name.replace(/"/g, '""')}"`;
    await client.query(`ALTER ${OWNED_KINDS[kind]} ${quoted} OWNER TO "${role}"`);
  }
}
