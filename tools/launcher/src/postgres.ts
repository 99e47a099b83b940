import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ServiceRole, provisionServiceRoles } from '@rollout/platform/postgres';
import type { EmbeddedPostgresReady, EmbeddedPostgresSpec } from './embedded-postgres';
import { DATABASE_EXISTS, SERVER_ANSWERS } from './postgres-statements';
import {
  LaunchError,
  Log,
  StartedDependency,
  describeExit,
  isAlive,
  siblingScript,
  stopChild,
} from './processes';
import {
  ServiceName,
  databaseName,
  hostAndPort,
  isLoopback,
  redact,
  withDatabase,
} from './settings';

export interface PostgresOptions {
  log: Log;
  stopTimeoutMs: number;
  startTimeoutMs?: number;
  settings?: Record<string, string>;
}

/** Starts an embedded Postgres only when the connection is refused; creates the URL's database if missing. */
export async function ensurePostgres(
  databaseUrl: string,
  options: PostgresOptions,
): Promise<StartedDependency | undefined> {
  const { log } = options;
  const name = databaseName(databaseUrl);
  const adminUrl = withDatabase(databaseUrl, 'postgres');
  let started: StartedDependency | undefined;
  try {
    await query(adminUrl, SERVER_ANSWERS);
    log(`Postgres: using the server at ${redact(adminUrl)}`);
  } catch (error) {
    if (!isConnectionRefused(error)) {
      throw new LaunchError(
        `cannot use the Postgres server of DATABASE_URL ${redact(databaseUrl)}: ${reason(error)}`,
      );
    }
    const { host, port } = hostAndPort(databaseUrl, 5432);
    if (!isLoopback(host)) {
      throw new LaunchError(
        `nothing answers at DATABASE_URL ${redact(databaseUrl)}; its host is not a loopback address, so the launcher does not start a server there`,
      );
    }
    started = await startEmbeddedPostgres(
      host,
      port,
      decodeURIComponent(new URL(databaseUrl).username) || 'postgres',
      options,
    );
  }
  try {
    await createDatabaseIfMissing(adminUrl, name, log);
  } catch (error) {
    await started?.stop();
    throw new LaunchError(
      `cannot create the database ${name} of DATABASE_URL ${redact(databaseUrl)}: ${reason(error)}`,
    );
  }
  return started;
}

export async function startEmbeddedPostgres(
  host: string,
  port: number,
  user: string,
  options: PostgresOptions,
): Promise<StartedDependency> {
  const tempDir = mkdtempSync(join(tmpdir(), 'policy-rollout-pg-'));
  // As root, the package runs Postgres as the unprivileged `postgres` user, which must be able
  // to enter this directory (mkdtemp makes it 0700); the data directory inside stays private.
  chmodSync(tempDir, 0o755);
  options.log(
    `Postgres: nothing answers at ${host}:${port}; starting an embedded Postgres there (data in ${tempDir})`,
  );
  const spec: EmbeddedPostgresSpec = { host, port, user, tempDir, settings: options.settings };
  const script = siblingScript('embedded-postgres');
  const child = fork(script.path, [JSON.stringify(spec)], {
    execArgv: script.execArgv,
    // Its own process group: a Ctrl-C in the terminal reaches only the launcher, which stops
    // Postgres last, after the services that use it.
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let postmasterPid: number | undefined;

  let stopped: Promise<void> | undefined;
  const dependency: StartedDependency = {
    name: 'embedded Postgres',
    pids: () =>
      [child.pid, postmasterPid].filter((pid): pid is number => pid !== undefined && isAlive(pid)),
    stop: () =>
      (stopped ??= (async () => {
        await stopChild(child, options.stopTimeoutMs);
        // Only when the wrapper had to be SIGKILLed does the server outlive it.
        if (postmasterPid !== undefined && isAlive(postmasterPid))
          process.kill(postmasterPid, 'SIGQUIT');
        rmSync(tempDir, { recursive: true, force: true });
      })()),
  };

  const timeoutMs = options.startTimeoutMs ?? 120_000;
  try {
    postmasterPid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not ready after ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.once('message', (message: EmbeddedPostgresReady) => {
        clearTimeout(timer);
        resolve(message.postmasterPid);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`it exited (${describeExit(code, signal)}); see the lines above`));
      });
    });
  } catch (error) {
    await dependency.stop();
    throw new LaunchError(`embedded Postgres did not start: ${reason(error)}`);
  }
  options.log(`Postgres: embedded Postgres is ready on ${host}:${port}`);
  return dependency;
}

async function createDatabaseIfMissing(adminUrl: string, name: string, log: Log): Promise<void> {
  const rows = await query(adminUrl, DATABASE_EXISTS, [name]);
  if (rows > 0) return;
  try {
    // `name` matches [a-z_][a-z0-9_]* (databaseName), so it is safe to quote as an identifier.
    await query(adminUrl, `CREATE DATABASE "${name}"`);
    log(`Postgres: created the database ${name}`);
  } catch (error) {
    // Another process created it between our check and our CREATE: that is what we wanted.
    if ((error as { code?: string }).code !== '42P04') throw error;
  }
}

async function query(url: string, sql: string, params: unknown[] = []): Promise<number> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const result = await client.query(sql, params);
    return result.rowCount ?? 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Nothing listens there (as opposed to a server that answers and refuses us). */
export function isConnectionRefused(error: unknown): boolean {
  const { code, errors } = error as { code?: string; errors?: unknown[] };
  if (code === 'ECONNREFUSED') return true;
  // With several addresses for one host name, Node reports an AggregateError of them all.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionRefused);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const SERVICE_SCHEMAS: Partial<Record<ServiceName, string>> = {
  'experiment-service': 'experiment',
  evaluator: 'preview',
  'enforcement-service': 'enforcement',
  'inspection-rules-service': 'inspection',
};

/**
 * The role of a service's schema in this database. Roles belong to the whole server, so the
 * database's name keeps those of two databases (two checkouts, parallel test runs) apart.
 */
export function serviceRoleName(database: string, schema: string): string {
  const role = `${database}_${schema}`;
  if (role.length > 63)
    throw new LaunchError(
      `the database name ${database} is too long for its services' roles (${role} has more than 63 characters): shorten it in DATABASE_URL`,
    );
  return role;
}

export interface ServiceDatabase {
  url: string;
  password: string;
  schema: string;
}

/** Each service gets a role owning only its schema, with a password new for this run (idempotent). */
export async function provisionDatabaseRoles(
  databaseUrl: string,
  log: Log,
): Promise<Partial<Record<ServiceName, ServiceDatabase>>> {
  const database = databaseName(databaseUrl);
  const services = Object.entries(SERVICE_SCHEMAS) as [ServiceName, string][];
  const roles = services.map(([, schema]): ServiceRole => ({
    role: serviceRoleName(database, schema),
    schema,
    password: randomBytes(18).toString('base64url'),
  }));
  const admin = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
    await provisionServiceRoles(admin, roles);
  } catch (error) {
    throw new LaunchError(
      `cannot give each service its own role in ${redact(databaseUrl)} (the URL's user must be a superuser): ${reason(error)}`,
    );
  } finally {
    await admin.end().catch(() => undefined);
  }
  log(
    `Postgres: each service connects as its own role, owner of its schema only (${roles.map((r) => `${r.role}: ${r.schema}`).join(', ')})`,
  );
  return Object.fromEntries(
    services.map(([service], i) => {
      const url = new URL(databaseUrl);
      url.username = roles[i].role;
      url.password = '';
      return [
        service,
        { url: url.toString(), password: roles[i].password!, schema: roles[i].schema },
      ];
    }),
  );
}

export async function removeDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(
      `DROP DATABASE IF EXISTS "${databaseName(withDatabase(serverUrl, database))}" WITH (FORCE)`,
    );
    for (const schema of Object.values(SERVICE_SCHEMAS))
      await client.query(`DROP ROLE IF EXISTS "${serviceRoleName(database, schema)}"`);
  } finally {
    await client.end();
  }
}
