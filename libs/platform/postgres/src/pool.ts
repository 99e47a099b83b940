import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** For what TypeORM cannot send: several statements in one round trip, named prepared statements. */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/** Bounds what each connection holds; later texts go unnamed. */
export const MAX_PREPARED_STATEMENTS = 200;
const names = new Map<string, string>();

/**
 * Parsing and planning are about a third of Postgres's CPU for the event store's append
 * (test/bench/experiments.bench.ts). Only for texts from a fixed set, values always bound.
 */
export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED_STATEMENTS) {
    name = `rollout_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

/** A connection that cannot even roll back is broken, and the pool drops it. */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (failure: Error) => failure,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}
