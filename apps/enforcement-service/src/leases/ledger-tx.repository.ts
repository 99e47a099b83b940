import type { PoolClient, QueryResult } from 'pg';
import { escapeLiteral } from 'pg';
import type { LeaseChange, LeaseRow, NewDecision } from './ledger-rows';

export const LEASE_COLUMNS =
  'uid, project, lease_id, origin, blazar_name, blazar_id, name, start_date, end_date, reservations, status, status_reason, creator, region_name, create_time, update_time, end_time, on_end_sent';
const LIVE = `status IN ('PENDING', 'ACTIVE')`;

const DECISION_INSERT = `INSERT INTO decisions (lease_uid, project, lease_id, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id)`;
const decisionParams = (d: NewDecision, offset: number) => ({
  placeholders: Array.from({ length: 13 }, (_, i) => `$${offset + i + 1}`).join(', '),
  values: [
    d.leaseUid,
    d.project,
    d.leaseId,
    d.hook,
    d.result,
    d.filter ?? null,
    d.message ?? null,
    d.exempted,
    JSON.stringify(d.steps),
    d.time,
    d.actor,
    d.userId,
    d.requestId ?? null,
  ],
});

const leaseValues = (l: LeaseRow) => [
  l.uid,
  l.project,
  l.lease_id,
  l.origin,
  l.blazar_name,
  l.blazar_id,
  l.name,
  l.start_date,
  l.end_date,
  JSON.stringify(l.reservations),
  l.status,
  l.status_reason,
  l.creator,
  l.region_name,
  l.create_time,
  l.update_time,
  l.end_time,
  l.on_end_sent,
];

/**
 * A SQL literal for a value of ours, for the few statements sent as one simple-protocol
 * round trip (several statements cannot carry bind parameters). Strings go through pg's
 * escapeLiteral; everything else is typed explicitly.
 */
export function lit(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('not a finite number');
    return String(value);
  }
  if (value instanceof Date) return `${escapeLiteral(value.toISOString())}::timestamptz`;
  if (typeof value === 'string') return escapeLiteral(value);
  return `${escapeLiteral(JSON.stringify(value))}::jsonb`;
}

export const LIVE_COUNT = (project: string, now: Date) =>
  `SELECT count(*)::int AS n FROM leases WHERE project = ${lit(project)} AND ${LIVE} AND end_date > ${lit(now)}`;

const insertLeaseSql = (lease: LeaseRow) =>
  `INSERT INTO leases (${LEASE_COLUMNS}) VALUES (${leaseValues(lease).map(lit).join(', ')}) RETURNING ${LEASE_COLUMNS}`;
export const insertDecisionSql = (d: NewDecision) =>
  `${DECISION_INSERT} VALUES (${decisionParams(d, 0).values.map(lit).join(', ')})`;

/** Reads and writes within one transaction, on one connection. */
export class LedgerTx {
  constructor(protected readonly client: PoolClient) {}

  protected async rows<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query(text, params)).rows as T[];
  }

  async getForUpdate(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    return (
      await this.rows<LeaseRow>(
        `SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2 FOR UPDATE`,
        [project, leaseId],
      )
    )[0];
  }

  /** A Blazar lease by Blazar's id or name: a live one first, else the latest. */
  async findBlazarForUpdate(
    project: string,
    key: { id?: string; name?: string },
  ): Promise<LeaseRow | undefined> {
    return (
      await this.rows<LeaseRow>(
        findBlazarSql(lit(project), lit(key.id ?? null), lit(key.name ?? null)),
      )
    )[0];
  }

  async countLive(project: string, now: Date): Promise<number> {
    return (await this.rows<{ n: number }>(LIVE_COUNT(project, now)))[0].n;
  }

  /** Inserts a lease and, in the same statement, the decision about it. */
  async insertLease(lease: LeaseRow, decision?: NewDecision): Promise<LeaseRow> {
    return (await this.rows<LeaseRow>(withDecision(insertLeaseSql(lease), decision)))[0];
  }

  async changeLease(uid: string, change: LeaseChange, decision?: NewDecision): Promise<LeaseRow> {
    return (await this.rows<LeaseRow>(withDecision(changeLeaseSql(uid, change), decision)))[0];
  }

  /** Ends a lease and claims its on_end (so it is sent once, by whoever got here first). */
  async terminate(uid: string, now: Date, reason: string, endTime: Date = now): Promise<LeaseRow> {
    return (
      await this.rows<LeaseRow>(
        `UPDATE leases SET status = 'TERMINATED', status_reason = $3, end_time = $4, update_time = $2, on_end_sent = true
          WHERE uid = $1 RETURNING ${LEASE_COLUMNS}`,
        [uid, now, reason, endTime],
      )
    )[0];
  }

  /** Claims the on_end of a lease that ended without it; false when it was sent already. */
  async claimOnEnd(uid: string): Promise<boolean> {
    return (
      ((
        await this.client.query(
          'UPDATE leases SET on_end_sent = true WHERE uid = $1 AND NOT on_end_sent',
          [uid],
        )
      ).rowCount ?? 0) > 0
    );
  }

  async deleteLease(uid: string): Promise<void> {
    await this.client.query('DELETE FROM leases WHERE uid = $1', [uid]);
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    await this.client.query(insertDecisionSql(decision));
  }

  /** Runs a statement of another part of the service (the on_end outbox) in this transaction. */
  async execute<T>(statement: { text: string; values: unknown[] }): Promise<T[]> {
    return this.rows<T>(statement.text, statement.values);
  }

  /**
   * Live leases whose end passed: TERMINATED, with their on_end claimed by this transaction
   * (SKIP LOCKED, so replicas share the work and never claim a lease twice).
   */
  async claimEnded(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.rows<LeaseRow>(
      `UPDATE leases SET status = 'TERMINATED', status_reason = 'The end date passed.', end_time = end_date, update_time = $1, on_end_sent = true
        WHERE uid IN (SELECT uid FROM leases WHERE ${LIVE} AND end_date <= $1 ORDER BY end_date LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING ${LEASE_COLUMNS}`,
      [now, limit],
    );
  }
}

export function findBlazarSql(project: string, id: string, name: string): string {
  return `SELECT ${LEASE_COLUMNS} FROM leases
           WHERE project = ${project} AND origin = 'BLAZAR' AND (blazar_id = ${id} OR blazar_name = ${name})
           ORDER BY (${LIVE}) DESC, (blazar_id = ${id}) DESC NULLS LAST, create_time DESC
           LIMIT 1 FOR UPDATE`;
}

function changeLeaseSql(uid: string, c: LeaseChange): string {
  return `UPDATE leases SET name = ${lit(c.name)}, start_date = ${lit(c.start_date)}, end_date = ${lit(c.end_date)}, reservations = ${lit(c.reservations)},
            status = ${lit(c.status)}, status_reason = ${lit(c.status_reason)}, update_time = ${lit(c.update_time)},
            blazar_name = COALESCE(${lit(c.blazar_name ?? null)}, blazar_name), blazar_id = COALESCE(${lit(c.blazar_id ?? null)}, blazar_id)
          WHERE uid = ${lit(uid)} RETURNING ${LEASE_COLUMNS}`;
}

/** A lease write and the decision about it, as one statement. */
function withDecision(write: string, decision?: NewDecision): string {
  if (!decision) return write;
  return `WITH lease AS (${write}), decision AS (${insertDecisionSql(decision)}) SELECT * FROM lease`;
}

/**
 * A transaction that holds a project's lock, opened and closed in one round trip each: the
 * lock and the facts come with BEGIN, the write goes with COMMIT.
 */
export class CountingTx extends LedgerTx {
  constructor(
    client: PoolClient,
    private readonly onCommit: () => void,
  ) {
    super(client);
  }

  /** Writes and commits in one round trip; the results of `statements`, in order. */
  async commitWith(statements: string[]): Promise<QueryResult[]> {
    const results = (await this.client.query(
      [...statements, 'COMMIT'].join(';\n'),
    )) as unknown as QueryResult[];
    this.onCommit();
    return results.slice(0, statements.length);
  }

  insertLeaseSql(lease: LeaseRow, decision?: NewDecision): string {
    return withDecision(insertLeaseSql(lease), decision);
  }

  changeLeaseSql(uid: string, change: LeaseChange, decision?: NewDecision): string {
    return withDecision(changeLeaseSql(uid, change), decision);
  }

  insertDecisionSql(decision: NewDecision): string {
    return insertDecisionSql(decision);
  }
}

/** Rolls back; a connection that cannot even do that is handed back as broken (the pool drops it). */
export async function rollback(client: PoolClient): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
