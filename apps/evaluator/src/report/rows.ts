import type { Pool, PoolClient } from 'pg';

/** A pooled connection in a transaction, or the pool (a statement on whichever connection is free). */
export type Queryable = Pool | PoolClient;

/** A statement's rows, typed as the statement names its columns. */
export async function rowsOf<T>(db: Queryable, sql: string, params: unknown[]): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}
