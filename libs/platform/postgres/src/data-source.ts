import { DataSource, MixedList, EntitySchema } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { Pool, PoolClient } from 'pg';
import { poolOf } from './pool';
import { MIGRATIONS_LOCK, MIGRATIONS_UNLOCK, SCHEMA_EXISTS } from './postgres-statements';
import { PostgresTls, pgSslOptions } from './tls';

export interface PostgresOptions {
  url: string;
  /** Kubernetes keeps it in a Secret. */
  password?: string;
  /** Provisioned with its role (service-roles.ts); created here only when missing (tests, as superuser). */
  schema: string;
  tls?: PostgresTls;
  poolSize: number;
  applicationName: string;
  migrations: (new () => MigrationInterface)[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function assertIdentifier(schema: string): void {
  if (!IDENTIFIER.test(schema)) throw new Error(`invalid schema name "${schema}"`);
}

/** Migrations only (never `synchronize`), under an advisory lock so replicas starting together run them once. */
export async function openDataSource(options: PostgresOptions): Promise<DataSource> {
  assertIdentifier(options.schema);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    ...(options.password ? { password: options.password } : {}),
    ssl: pgSslOptions(options.tls),
    schema: options.schema,
    applicationName: options.applicationName,
    poolSize: options.poolSize,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    migrations: options.migrations,
    entities: options.entities ?? [],
    extra: {
      options: `-c search_path=${options.schema}`,
      // During a failover a command fails as UNAVAILABLE within the caller's RPC timeout.
      connectionTimeoutMillis: 2_000,
    },
  });
  try {
    await dataSource.initialize();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot connect to Postgres at ${redact(options.url)}: ${reason}`);
  }
  surviveCutConnections(poolOf(dataSource));
  try {
    await migrate(dataSource, options.schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

/**
 * A client cut by Postgres (restart, pg_terminate_backend) between TypeORM's listener and the
 * pool's emits an 'error' nobody hears, which ends the process: every client gets its own.
 */
function surviveCutConnections(pool: Pool): void {
  const guarded = new WeakSet<PoolClient>();
  pool.on('acquire', (client) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', () => undefined);
  });
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** The role may not create schemas, and Postgres checks that even for CREATE SCHEMA IF NOT EXISTS. */
async function createSchemaIfMissing(runner: QueryRunner, schema: string): Promise<void> {
  const found = (await runner.query(SCHEMA_EXISTS, [schema])) as unknown[];
  if (found.length > 0) return;
  try {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the schema "${schema}" does not exist and this role cannot create it (${reason}): provision it first (docs/security.md)`,
    );
  }
}

async function migrate(dataSource: DataSource, schema: string): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(MIGRATIONS_LOCK, [`migrations:${schema}`]);
    await createSchemaIfMissing(lock, schema);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query(MIGRATIONS_UNLOCK, [`migrations:${schema}`]).catch(() => undefined);
    await lock.release();
  }
}
