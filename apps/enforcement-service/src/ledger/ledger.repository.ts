import { Injectable } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import type { DecisionRecord, Lease, LedgerChange } from '@rollout/domain/enforcement';
import { inTransaction, poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import {
  CountingFacts,
  DecisionRow,
  LeaseRow,
  StoredDecision,
  decisionOfRow,
  leaseOfRow,
} from './ledger-rows';
import { CountingProbe, Statement, ledgerStatements as sql } from './ledger-statements';
import { KeyedQueue } from './project-queue';

export type { CountingFacts, StoredDecision } from './ledger-rows';
export type { CountingProbe } from './ledger-statements';

export class LedgerUnit {
  constructor(private readonly client: PoolClient) {}

  /** Also another part's statements, such as the on_end outbox's. */
  async execute<T>(statement: Statement): Promise<T[]> {
    return (await this.client.query(prepared(statement.text, statement.values))).rows as T[];
  }

  async lockLease(project: string, leaseId: string): Promise<Lease | undefined> {
    const [row] = await this.execute<LeaseRow>(sql.getForUpdate(project, leaseId));
    return row && leaseOfRow(row);
  }

  async lockBlazarLease(
    project: string,
    key: { id?: string; name?: string },
  ): Promise<Lease | undefined> {
    const [row] = await this.execute<LeaseRow>(sql.findBlazarForUpdate(project, key));
    return row && leaseOfRow(row);
  }

  async apply(changes: readonly LedgerChange[]): Promise<void> {
    for (const change of changes) await this.execute(sql.change(change));
  }

  /** SKIP LOCKED, so replicas share the work and never claim a lease twice. */
  async claimEnded(now: Date, limit: number): Promise<Lease[]> {
    return (await this.execute<LeaseRow>(sql.claimEnded(now, limit))).map(leaseOfRow);
  }
}

@Injectable()
export class Ledger {
  private readonly pool: Pool;
  private readonly projects = new KeyedQueue();

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  unitOfWork<T>(work: (unit: LedgerUnit) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new LedgerUnit(client)));
  }

  /** Serialised per project: a queue in this process, and the project's lock (held until the commit) across replicas. */
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

  async activateStarted(now: Date): Promise<number> {
    const { text, values } = sql.activateStarted(now);
    return (await this.pool.query(text, values)).rowCount ?? 0;
  }
}
