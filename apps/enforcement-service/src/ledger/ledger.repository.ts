import { Injectable } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import { inTransaction, poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import {
  CountingFacts,
  CountingProbe,
  DecisionRow,
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
  constructor(private readonly client: PoolClient) {}

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
    return (await this.execute<LeaseRow>(sql.terminate(uid, now, reason, endTime)))[0];
  }

  /** Claims the on_end of a lease that ended without it; false when it was sent already. */
  async claimOnEnd(uid: string): Promise<boolean> {
    const { text, values } = sql.claimOnEnd(uid);
    return ((await this.client.query(text, values)).rowCount ?? 0) > 0;
  }

  async deleteLease(uid: string): Promise<void> {
    const { text, values } = sql.deleteLease(uid);
    await this.client.query(text, values);
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    await this.execute(sql.insertDecision(decision));
  }

  /**
   * Live leases whose end passed: TERMINATED, with their on_end claimed by this transaction
   * (SKIP LOCKED, so replicas share the work and never claim a lease twice).
   */
  async claimEnded(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.execute<LeaseRow>(sql.claimEnded(now, limit));
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

  /** Runs `work` in one transaction, committed when it returns and rolled back when it throws. */
  transaction<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new LedgerTx(client)));
  }

  /**
   * A unit of work that counts a project's leases, serialised per project: a queue in this
   * process, and the project's lock (held until the commit) across replicas. `work` gets the
   * facts read after the lock; what it writes commits when it returns, and nothing when it throws.
   */
  underProjectLock<T>(
    project: string,
    now: Date,
    probe: CountingProbe,
    work: (tx: LedgerTx, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    return this.projects.run(project, () =>
      this.transaction(async (tx) => {
        await tx.execute(sql.lockProject(project));
        // Read after the lock: the statement's snapshot sees what the last holder committed.
        const [read] = await tx.execute<Partial<LeaseRow> & { live_count: number }>(
          sql.countingFacts(project, now, probe),
        );
        const { live_count: live, ...row } = read;
        const found = row.uid === null ? undefined : (row as LeaseRow);
        return work(tx, {
          live,
          taken: found !== undefined,
          tracked: 'blazar' in probe ? found : undefined,
        });
      }),
    );
  }

  async get(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    const { text, values } = sql.get(project, leaseId);
    return (await this.pool.query(text, values)).rows[0] as LeaseRow | undefined;
  }

  /** A project's leases by id, after `after`, in the given statuses (all when empty). */
  async list(
    project: string,
    statuses: LeaseStatus[],
    after: string | undefined,
    limit: number,
  ): Promise<LeaseRow[]> {
    const { text, values } = sql.list(project, statuses, after, limit);
    return (await this.pool.query(text, values)).rows as LeaseRow[];
  }

  async decisions(
    leaseUid: string,
    after: string | undefined,
    limit: number,
  ): Promise<DecisionRow[]> {
    const { text, values } = sql.decisions(leaseUid, after, limit);
    return (await this.pool.query(text, values)).rows as DecisionRow[];
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    const { text, values } = sql.insertDecision(decision);
    await this.pool.query(text, values);
  }

  /** PENDING leases whose start came: ACTIVE. */
  async activateStarted(now: Date): Promise<number> {
    const { text, values } = sql.activateStarted(now);
    return (await this.pool.query(text, values)).rowCount ?? 0;
  }
}
