import { Injectable } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import { inTransaction, poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import {
  CountingFacts,
  CountingProbe,
  DecisionRow,
  LEASE_COLUMNS,
  LeaseChange,
  LeaseRow,
  NewDecision,
  Statement,
  ledgerStatements as sql,
} from './ledger-statements';
import { KeyedQueue } from './project-queue';

export type { CountingProbe } from './ledger-statements';

/** Reads and writes within one transaction, on one connection. */
export class LedgerTx {
  constructor(protected readonly client: PoolClient) {}

  /** Runs a statement (the ledger's, or another part's such as the on_end outbox) in this transaction. */
  async execute<T>(statement: Statement): Promise<T[]> {
    return (await this.client.query(prepared(statement.text, statement.values))).rows as T[];
  }

  async getForUpdate(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    return (await this.execute<LeaseRow>(sql.getForUpdate(project, leaseId)))[0];
  }

  /** A Blazar lease by Blazar's id or name: a live one first, else the latest. */
  async findBlazarForUpdate(
    project: string,
    key: { id?: string; name?: string },
  ): Promise<LeaseRow | undefined> {
    return (await this.execute<LeaseRow>(sql.findBlazarForUpdate(project, key)))[0];
  }

  async countLive(project: string, now: Date): Promise<number> {
    return (await this.execute<{ n: number }>(sql.countLive(project, now)))[0].n;
  }

  /** Inserts a lease and, in the same statement, the decision about it. */
  async insertLease(lease: LeaseRow, decision?: NewDecision): Promise<LeaseRow> {
    return (await this.execute<LeaseRow>(sql.insertLease(lease, decision)))[0];
  }

  async changeLease(uid: string, change: LeaseChange, decision?: NewDecision): Promise<LeaseRow> {
    return (await this.execute<LeaseRow>(sql.changeLease(uid, change, decision)))[0];
  }

  /** Ends a lease and claims its on_end (so it is sent once, by whoever got here first). */
  async terminate(uid: string, now: Date, reason: string, endTime: Date = now): Promise<LeaseRow> {
    const [row] = await this.execute<LeaseRow>({
      text: `UPDATE leases SET status = 'TERMINATED', status_reason = $3, end_time = $4, update_time = $2, on_end_sent = true
              WHERE uid = $1 RETURNING ${LEASE_COLUMNS}`,
      values: [uid, now, reason, endTime],
    });
    return row;
  }

  /** Claims the on_end of a lease that ended without it; false when it was sent already. */
  async claimOnEnd(uid: string): Promise<boolean> {
    const claimed = await this.client.query(
      'UPDATE leases SET on_end_sent = true WHERE uid = $1 AND NOT on_end_sent',
      [uid],
    );
    return (claimed.rowCount ?? 0) > 0;
  }

  async deleteLease(uid: string): Promise<void> {
    await this.client.query('DELETE FROM leases WHERE uid = $1', [uid]);
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    await this.execute(sql.insertDecision(decision));
  }

  /**
   * Live leases whose end passed: TERMINATED, with their on_end claimed by this transaction
   * (SKIP LOCKED, so replicas share the work and never claim a lease twice).
   */
  async claimEnded(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.execute<LeaseRow>({
      text: `UPDATE leases SET status = 'TERMINATED', status_reason = 'The end date passed.', end_time = end_date, update_time = $1, on_end_sent = true
              WHERE uid IN (SELECT uid FROM leases WHERE status IN ('PENDING', 'ACTIVE') AND end_date <= $1 ORDER BY end_date LIMIT $2 FOR UPDATE SKIP LOCKED)
              RETURNING ${LEASE_COLUMNS}`,
      values: [now, limit],
    });
  }
}

/** A transaction that holds a project's lock; its writes go with its COMMIT. */
export class CountingTx extends LedgerTx {
  constructor(
    client: PoolClient,
    private readonly onCommit: () => void,
  ) {
    super(client);
  }

  /** Writes, then commits; the results of `statements`, in order. */
  async commitWith(statements: Statement[]): Promise<QueryResult[]> {
    const results: QueryResult[] = [];
    for (const statement of statements)
      results.push(await this.client.query(prepared(statement.text, statement.values)));
    await this.client.query('COMMIT');
    this.onCommit();
    return results;
  }

  insertLeaseSql(lease: LeaseRow, decision?: NewDecision): Statement {
    return sql.insertLease(lease, decision);
  }

  changeLeaseSql(uid: string, change: LeaseChange, decision?: NewDecision): Statement {
    return sql.changeLease(uid, change, decision);
  }

  insertDecisionSql(decision: NewDecision): Statement {
    return sql.insertDecision(decision);
  }
}

/** Rolls back; a connection that cannot even do that is handed back as broken (the pool drops it). */
async function rollback(client: PoolClient): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

/** The lease ledger in the service's schema (SQL on the service's pg pool, values bound). */
@Injectable()
export class Ledger {
  private readonly pool: Pool;
  private readonly projects = new KeyedQueue();

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  transaction<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new LedgerTx(client)));
  }

  /**
   * A decision that counts a project's leases, serialised per project: a queue in this process,
   * and the project's lock across replicas. Opens the transaction, takes the lock (until commit)
   * and reads the facts after it; `work` decides and commits with `commitWith`. Anything else
   * rolls back.
   */
  counting<T>(
    project: string,
    now: Date,
    probe: CountingProbe,
    work: (tx: CountingTx, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    return this.projects.run(project, () => this.countingNow(project, now, probe, work));
  }

  private async countingNow<T>(
    project: string,
    now: Date,
    probe: CountingProbe,
    work: (tx: CountingTx, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool.connect();
    let committed = false;
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const tx = new CountingTx(client, () => (committed = true));
      await tx.execute(sql.lockProject(project));
      // Read after the lock: the statement's snapshot sees what the last holder committed.
      const [read] = await tx.execute<Partial<LeaseRow> & { live_count: number }>(
        sql.countingFacts(project, now, probe),
      );
      const { live_count: live, ...row } = read;
      const found = row.uid === null ? undefined : (row as LeaseRow);
      const facts: CountingFacts = {
        live,
        taken: found !== undefined,
        tracked: 'blazar' in probe ? found : undefined,
      };
      return await work(tx, facts);
    } catch (error) {
      if (!committed) broken = await rollback(client);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async get(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    const result = await this.pool.query(
      `SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2`,
      [project, leaseId],
    );
    return result.rows[0] as LeaseRow | undefined;
  }

  /** A project's leases by id, after `after`, in the given statuses (all when empty). */
  async list(
    project: string,
    statuses: LeaseStatus[],
    after: string | undefined,
    limit: number,
  ): Promise<LeaseRow[]> {
    const result = await this.pool.query(
      `SELECT ${LEASE_COLUMNS} FROM leases
        WHERE project = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2)) AND ($3::text IS NULL OR lease_id > $3)
        ORDER BY lease_id LIMIT $4`,
      [project, statuses, after ?? null, limit],
    );
    return result.rows as LeaseRow[];
  }

  async decisions(
    leaseUid: string,
    after: string | undefined,
    limit: number,
  ): Promise<DecisionRow[]> {
    const result = await this.pool.query(
      `SELECT id::text, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id FROM decisions
        WHERE lease_uid = $1 AND ($2::bigint IS NULL OR decisions.id > $2) ORDER BY decisions.id LIMIT $3`,
      [leaseUid, after ?? null, limit],
    );
    return result.rows as DecisionRow[];
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    const { text, values } = sql.insertDecision(decision);
    await this.pool.query(text, values);
  }

  /** PENDING leases whose start came: ACTIVE. */
  async activateStarted(now: Date): Promise<number> {
    const result = await this.pool.query(
      `UPDATE leases SET status = 'ACTIVE', update_time = $1 WHERE status = 'PENDING' AND start_date <= $1 AND end_date > $1`,
      [now],
    );
    return result.rowCount ?? 0;
  }
}
