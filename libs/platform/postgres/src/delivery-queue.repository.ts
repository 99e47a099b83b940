import type { Pool } from 'pg';

/**
 * Besides key and payload, the table has `attempts`, `next_attempt_at`, `last_error`,
 * `created_at` and, when `abandons`, `abandoned_at`.
 */
export interface DeliveryQueueTable {
  name: string;
  key: readonly string[];
  /** Makes a second enqueue of the same thing a no-op; default `key`. */
  unique?: readonly string[];
  payload: readonly string[];
  /** Abandoned rows are kept with `abandoned_at`, never claimed again. */
  abandons: boolean;
}

export interface DeliveryAttempts {
  attempts: number;
}

export interface DeliveryRetry {
  attempts: number;
  lastError: string;
  set?: Readonly<Record<string, unknown>>;
}

export interface SqlStatement {
  text: string;
  values: unknown[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * A claim is a timestamp, not a lock: it moves `next_attempt_at` `claimMs` ahead in one
 * statement, so no row lock is held while the caller talks to the outside, and a replica that
 * died mid-attempt leaves the row to others once its claim passes.
 */
export class DeliveryQueue<Row extends object> {
  private readonly keyList: string;
  private readonly uniqueList: string;
  private readonly returning: string;
  private readonly live: string;

  constructor(
    private readonly pool: Pool,
    private readonly table: DeliveryQueueTable,
    /** Longer than a claimed batch takes to try. */
    readonly claimMs: number,
  ) {
    for (const name of [table.name, ...table.key, ...(table.unique ?? []), ...table.payload])
      if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
    this.keyList = table.key.join(', ');
    this.uniqueList = (table.unique ?? table.key).join(', ');
    this.returning = [...table.key, ...table.payload, 'attempts'].join(', ');
    this.live = table.abandons ? 'abandoned_at IS NULL AND ' : '';
  }

  /** A row with the same key is left as it is; the statement returns the key of a row it added. */
  enqueueStatement(
    values: Readonly<Record<string, unknown>>,
    nextAttemptAt: Date,
    now: Date,
    failed?: { attempts: number; lastError: string },
  ): SqlStatement {
    const known = [...this.table.key, ...this.table.payload];
    const columns = Object.keys(values);
    for (const name of columns)
      if (!known.includes(name)) throw new Error(`${this.table.name} has no column ${name}`);
    const names = [...columns, 'attempts', 'last_error', 'next_attempt_at', 'created_at'];
    const params = [
      ...columns.map((c) => values[c] ?? null),
      failed?.attempts ?? 0,
      failed?.lastError ?? null,
      nextAttemptAt,
      now,
    ];
    return {
      text: `INSERT INTO ${this.table.name} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})
             ON CONFLICT (${this.uniqueList}) DO NOTHING RETURNING ${this.keyList}`,
      values: params,
    };
  }

  async enqueue(
    values: Readonly<Record<string, unknown>>,
    nextAttemptAt: Date,
    now: Date,
    failed?: { attempts: number; lastError: string },
  ): Promise<boolean> {
    const { text, values: params } = this.enqueueStatement(values, nextAttemptAt, now, failed);
    return ((await this.pool.query(text, params)).rowCount ?? 0) > 0;
  }

  /** Rows another replica is claiming at the same moment are skipped. */
  async claimDue(now: Date, limit: number): Promise<(Row & DeliveryAttempts)[]> {
    const result = await this.pool.query(
      `UPDATE ${this.table.name} SET next_attempt_at = $2
        WHERE (${this.keyList}) IN (SELECT ${this.keyList} FROM ${this.table.name}
          WHERE ${this.live}next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${this.returning}`,
      [now, new Date(now.getTime() + this.claimMs), limit],
    );
    return result.rows as (Row & DeliveryAttempts)[];
  }

  async done(key: Readonly<Record<string, unknown>>): Promise<void> {
    const where = this.where(key, 0);
    await this.pool.query(`DELETE FROM ${this.table.name} WHERE ${where.text}`, where.values);
  }

  async retryAt(key: Readonly<Record<string, unknown>>, retry: DeliveryRetry, at: Date) {
    await this.update(key, retry, 'next_attempt_at', at);
  }

  async abandon(key: Readonly<Record<string, unknown>>, retry: DeliveryRetry, at: Date) {
    if (!this.table.abandons) throw new Error(`${this.table.name} keeps every row until done`);
    await this.update(key, retry, 'abandoned_at', at);
  }

  async countPending(): Promise<number> {
    const live = this.table.abandons ? ' WHERE abandoned_at IS NULL' : '';
    const result = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.table.name}${live}`,
    );
    return result.rows[0].n;
  }

  private async update(
    key: Readonly<Record<string, unknown>>,
    retry: DeliveryRetry,
    timeColumn: 'next_attempt_at' | 'abandoned_at',
    at: Date,
  ): Promise<void> {
    const set = Object.entries(retry.set ?? {});
    for (const [name] of set)
      if (!this.table.payload.includes(name))
        throw new Error(`${this.table.name} has no payload column ${name}`);
    const assignments = ['attempts', 'last_error', timeColumn, ...set.map(([name]) => name)];
    const values = [retry.attempts, retry.lastError, at, ...set.map(([, value]) => value)];
    const where = this.where(key, values.length);
    await this.pool.query(
      `UPDATE ${this.table.name} SET ${assignments.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE ${where.text}`,
      [...values, ...where.values],
    );
  }

  private where(key: Readonly<Record<string, unknown>>, offset: number): SqlStatement {
    return {
      text: this.table.key.map((c, i) => `${c} = $${offset + i + 1}`).join(' AND '),
      values: this.table.key.map((c) => {
        if (key[c] === undefined) throw new Error(`${this.table.name}: key column ${c} missing`);
        return key[c];
      }),
    };
  }
}
