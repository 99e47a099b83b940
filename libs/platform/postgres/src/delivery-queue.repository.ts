import type { Pool } from 'pg';

/**
 * The table of a delivery queue: its key and payload columns, plus the queue's own `attempts`
 * (int), `next_attempt_at` (timestamptz), `last_error` (text), `created_at` (timestamptz) and,
 * when `abandons`, `abandoned_at` (timestamptz).
 */
export interface DeliveryQueueTable {
  name: string;
  /** The columns that identify a row (its primary key). */
  key: readonly string[];
  /** The unique columns that make a second enqueue of the same thing a no-op; default `key`. */
  unique?: readonly string[];
  /** The columns a row carries besides the queue's own. */
  payload: readonly string[];
  /** Whether rows can be given up (kept with `abandoned_at`, never claimed again). */
  abandons: boolean;
}

/** The queue's own columns of a claimed row. */
export interface DeliveryAttempts {
  attempts: number;
}

/** How a row that was not delivered goes on: when it is tried next, and why the last try failed. */
export interface DeliveryRetry {
  attempts: number;
  lastError: string;
  /** Payload columns to change with it (what is still owed, say). */
  set?: Readonly<Record<string, unknown>>;
}

/** One statement with its bind parameters, for a caller's own transaction. */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Something to deliver outside (a notification, a call), kept in Postgres until it is delivered:
 * enqueued (in the caller's transaction if it likes), claimed when due by one replica, then
 * done, retried at a later time, or abandoned. A claim is a timestamp, not a lock: claiming moves
 * `next_attempt_at` `claimMs` ahead in one statement, so no row lock is held while the caller
 * talks to the outside, and a replica that died mid-attempt leaves the row to the others once
 * its claim passes. Every value is a bind parameter; names come from the table's definition.
 */
export class DeliveryQueue<Row extends object> {
  private readonly keyList: string;
  private readonly uniqueList: string;
  private readonly returning: string;
  private readonly live: string;

  constructor(
    private readonly pool: Pool,
    private readonly table: DeliveryQueueTable,
    /** How long a claim lasts: longer than a claimed batch takes to try. */
    readonly claimMs: number,
  ) {
    for (const name of [table.name, ...table.key, ...(table.unique ?? []), ...table.payload])
      if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
    this.keyList = table.key.join(', ');
    this.uniqueList = (table.unique ?? table.key).join(', ');
    this.returning = [...table.key, ...table.payload, 'attempts'].join(', ');
    this.live = table.abandons ? 'abandoned_at IS NULL AND ' : '';
  }

  /**
   * Adds a row, first tried at `nextAttemptAt` (its first claim, when the caller tries it at
   * once); a row with the same key is left as it is. Returns the statement, to run in the
   * caller's transaction; it returns the key of a row it added.
   */
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

  /** `enqueueStatement` on a pooled connection of its own; whether the row was added. */
  async enqueue(
    values: Readonly<Record<string, unknown>>,
    nextAttemptAt: Date,
    now: Date,
    failed?: { attempts: number; lastError: string },
  ): Promise<boolean> {
    const { text, values: params } = this.enqueueStatement(values, nextAttemptAt, now, failed);
    return ((await this.pool.query(text, params)).rowCount ?? 0) > 0;
  }

  /**
   * Up to `limit` rows due at `now` (the oldest, in no particular order), claimed for `claimMs`: rows another replica
   * is claiming at the same moment are skipped, and the claim is over when this returns.
   */
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

  /** Delivered: the row goes. */
  async done(key: Readonly<Record<string, unknown>>): Promise<void> {
    const where = this.where(key, 0);
    await this.pool.query(`DELETE FROM ${this.table.name} WHERE ${where.text}`, where.values);
  }

  /** Not delivered: tried again at `at`. */
  async retryAt(key: Readonly<Record<string, unknown>>, retry: DeliveryRetry, at: Date) {
    await this.update(key, retry, 'next_attempt_at', at);
  }

  /** Not delivered and given up: kept with `abandoned_at`, never claimed again. */
  async abandon(key: Readonly<Record<string, unknown>>, retry: DeliveryRetry, at: Date) {
    if (!this.table.abandons) throw new Error(`${this.table.name} keeps every row until done`);
    await this.update(key, retry, 'abandoned_at', at);
  }

  /** Rows still to deliver (abandoned ones excluded). */
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
