import { Injectable } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import type { DecisionRecord, Lease, LedgerChange } from '@rollout/domain/enforcement';
import { inTransaction, poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import {
  CountingFacts,
  CountingProbe,
  DecisionRow,
  LeaseRow,
  Statement,
  StoredDecision,
  decisionOfRow,
  leaseOfRow,
  ledgerStatements as sql,
} from './ledger-statements';
import { KeyedQueue } from './project-queue';

export type { CountingFacts, CountingProbe, StoredDecision } from './ledger-statements';

/** Reads and writes within one transaction, on one connection. */
export class LedgerUnit {
  constructor(private readonly client: PoolClient) {}

  /** Runs a statement (the ledger's, or another part's such as the on_end outbox) in this unit. */
  async execute<T>(statement: Statement): Promise<T[]> {
    return (await this.client.query(prepared(statement.text, statement.values))).rows as T[];
  }

  /** The lease, locked until the unit ends. */
  async lockLease(project: string, leaseId: string): Promise<Lease | undefined> {
    const [row] = await this.execute<LeaseRow>(sql.getForUpdate(project, leaseId));
    return row && leaseOfRow(row);
  }

  /** A Blazar lease by Blazar's id or name, locked: a live one first, else the latest. */
  async lockBlazarLease(
    project: string,
    key: { id?: string; name?: string },
  ): Promise<Lease | undefined> {
    const [row] = await this.execute<LeaseRow>(sql.findBlazarForUpdate(project, key));
    return row && leaseOfRow(row);
  }

  /** Writes what a decider decided, in its order. */
  async apply(changes: readonly LedgerChange[]): Promise<void> {
    for (const change of changes) await this.execute(sql.change(change));
  }

  /**
   * Live leases whose end passed: TERMINATED, with their on_end claimed by this unit (SKIP
   * LOCKED, so replicas share the work and never claim a lease twice).
   */
  async claimEnded(now: Date, limit: number): Promise<Lease[]> {
    return (await this.execute<LeaseRow>(sql.claimEnded(now, limit))).map(leaseOfRow);
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

  /** A unit of work: committed when `work` returns, rolled back when it throws. */
  unitOfWork<T>(work: (unit: LedgerUnit) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new LedgerUnit(client)));
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
    work: (unit: LedgerUnit, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    return this.projects.run(project, () =>
      this.unitOfWork(async (unit) => {
        await unit.execute(sql.lockProject(project));
        // Read after the lock: the statement's snapshot sees what the last holder committed.
        const [read] = await unit.execute<Partial<LeaseRow> & { live_count: number }>(
          sql.countingFacts(project, now, probe),
        );
        const { live_count: live, ...row } = read;
        const found = row.uid === null ? undefined : leaseOfRow(row as LeaseRow);
        return work(unit, {
          live,
          taken: found !== undefined,
          tracked: 'blazar' in probe ? found : undefined,
        });
      }),
    );
  }

  async get(project: string, leaseId: string): Promise<Lease | undefined> {
    const { text, values } = sql.get(project, leaseId);
    const [row] = (await this.pool.query<LeaseRow>(text, values)).rows;
    return row && leaseOfRow(row);
  }

  /** A project's leases by id, after `after`, in the given statuses (all when empty). */
  async list(
    project: string,
    statuses: LeaseStatus[],
    after: string | undefined,
    limit: number,
  ): Promise<Lease[]> {
    const { text, values } = sql.list(project, statuses, after, limit);
    return (await this.pool.query<LeaseRow>(text, values)).rows.map(leaseOfRow);
  }

  async decisions(
    leaseUid: string,
    after: string | undefined,
    limit: number,
  ): Promise<StoredDecision[]> {
    const { text, values } = sql.decisions(leaseUid, after, limit);
    return (await this.pool.query<DecisionRow>(text, values)).rows.map(decisionOfRow);
  }

  async record(decision: DecisionRecord): Promise<void> {
    const { text, values } = sql.insertDecision(decision);
    await this.pool.query(text, values);
  }

  /** PENDING leases whose start came: ACTIVE. */
  async activateStarted(now: Date): Promise<number> {
    const { text, values } = sql.activateStarted(now);
    return (await this.pool.query(text, values)).rowCount ?? 0;
  }
}
