import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

/**
 * TypeORM puts the query and its parameters (rule contents, inspection secrets) on its errors,
 * and whoever logs the error would print them; the Postgres error code stays.
 */
export class DatabaseError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

export const UNIQUE_VIOLATION = '23505';

export async function query<T>(
  runner: DataSource | EntityManager,
  sql: string,
  parameters: unknown[] = [],
): Promise<T> {
  try {
    return (await runner.query(sql, parameters)) as T;
  } catch (error) {
    if (error instanceof QueryFailedError) {
      const code = (error.driverError as { code?: string } | undefined)?.code;
      throw new DatabaseError(`database query failed: ${error.message}`, code);
    }
    throw error;
  }
}
