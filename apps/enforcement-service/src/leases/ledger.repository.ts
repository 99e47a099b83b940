import { Injectable } from '@nestjs/common';
import type { LeaseStatus } from '@rollout/contracts';
import { inTransaction, poolOf } from '@rollout/platform/postgres';
import type { Pool, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import type { CountingFacts, DecisionRow, LeaseRow, NewDecision } from './ledger-rows';
import {
  CountingTx,
  LEASE_COLUMNS,
  LIVE_COUNT,
  LedgerTx,
  findBlazarSql,
  insertDecisionSql,
  lit,
  rollback,
} from './ledger-tx.repository';

/** The lease ledger in the service's schema (raw SQL on the service's pg pool). */
@Injectable()
export class Ledger {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  transaction<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new LedgerTx(client)));
  }

  /**
   * A decision that counts a project's leases: one round trip opens the transaction, takes the
   * project's lock (across replicas, until commit; keyed by schema too, so test runs sharing a
   * database never wait on each other) and reads the facts; `work` decides and commits with
   * `commitWith`. Anything else rolls back.
   */
  async counting<T>(
    project: string,
    now: Date,
    probe: { exists: string } | { blazar: { id?: string; name?: string } },
    work: (tx: CountingTx, facts: CountingFacts) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool.connect();
    let committed = false;
    let broken: Error | undefined;
    try {
      const p = lit(project);
      const find =
        'exists' in probe
          ? `SELECT uid FROM leases WHERE project = ${p} AND lease_id = ${lit(probe.exists)}`
          : findBlazarSql(p, lit(probe.blazar.id ?? null), lit(probe.blazar.name ?? null));
      const results = (await client.query(
        [
          `BEGIN`,
          `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':leases:' || ${p}, 0))`,
          find,
          LIVE_COUNT(project, now),
        ].join(';\n'),
      )) as unknown as QueryResult[];
      const found = results[2].rows[0] as LeaseRow | undefined;
      const facts: CountingFacts = {
        live: (results[3].rows[0] as { n: number }).n,
        taken: found !== undefined,
        tracked: 'blazar' in probe ? found : undefined,
      };
      const tx = new CountingTx(client, () => (committed = true));
      return await work(tx, facts);
    } catch (error) {
      if (!committed) broken = await rollback(client);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async get(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    return (
      await this.pool.query(
        `SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2`,
        [project, leaseId],
      )
    ).rows[0] as LeaseRow | undefined;
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
    await this.pool.query(insertDecisionSql(decision));
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
