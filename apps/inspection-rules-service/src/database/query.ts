import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

/**
 * A database error without the query and its parameters, which hold rule contents and
 * inspection data (secrets included): TypeORM puts both on its errors, and whoever logs the
 * error would print them. The Postgres error code stays, for the callers that look at it.
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

/** Runs one SQL statement; a failure comes back as a DatabaseError. */
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
