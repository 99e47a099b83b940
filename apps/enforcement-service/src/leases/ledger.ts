import { Injectable } from '@nestjs/common';
import type { DecisionHook, DecisionResult, DecisionStep, LeaseOrigin, LeaseStatus } from '@rollout/contracts';
import type { Reservation } from '@rollout/enforcement-domain';
import { DataSource, EntityManager } from 'typeorm';

/** A row of `leases`. Reservations are stored in the domain's shape (plugin attributes snake_case). */
export interface LeaseRow {
  uid: string;
  project: string;
  lease_id: string;
  origin: LeaseOrigin;
  blazar_name: string | null;
  blazar_id: string | null;
  name: string;
  start_date: Date;
  end_date: Date;
  reservations: Reservation[];
  status: LeaseStatus;
  status_reason: string | null;
  creator: string;
  region_name: string;
  create_time: Date;
  update_time: Date;
  end_time: Date | null;
  on_end_sent: boolean;
}

export interface DecisionRow {
  id: string;
  hook: DecisionHook;
  result: DecisionResult;
  filter: string | null;
  message: string | null;
  exempted: boolean;
  steps: DecisionStep[];
  time: Date;
  actor: string;
  user_id: string;
  request_id: string | null;
}

export interface NewDecision {
  leaseUid: string;
  project: string;
  leaseId: string;
  hook: DecisionHook;
  result: DecisionResult;
  filter?: string;
  message?: string;
  exempted: boolean;
  steps: DecisionStep[];
  time: Date;
  actor: string;
  userId: string;
  requestId?: string;
}

const LEASE_COLUMNS =
  'uid, project, lease_id, origin, blazar_name, blazar_id, name, start_date, end_date, reservations, status, status_reason, creator, region_name, create_time, update_time, end_time, on_end_sent';
const LIVE = `status IN ('PENDING', 'ACTIVE')`;

const DECISION_INSERT = `INSERT INTO decisions (lease_uid, project, lease_id, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id)`;
const decisionParams = (d: NewDecision, offset: number) => ({
  placeholders: Array.from({ length: 13 }, (_, i) => `$${offset + i + 1}`).join(', '),
  values: [d.leaseUid, d.project, d.leaseId, d.hook, d.result, d.filter ?? null, d.message ?? null, d.exempted, JSON.stringify(d.steps), d.time, d.actor, d.userId, d.requestId ?? null],
});

const leaseValues = (l: LeaseRow) => [
  l.uid, l.project, l.lease_id, l.origin, l.blazar_name, l.blazar_id, l.name, l.start_date, l.end_date, JSON.stringify(l.reservations),
  l.status, l.status_reason, l.creator, l.region_name, l.create_time, l.update_time, l.end_time, l.on_end_sent,
];

/** The part of a lease an update or a re-admission changes. */
export interface LeaseChange {
  name: string;
  start_date: Date;
  end_date: Date;
  reservations: Reservation[];
  status: LeaseStatus;
  status_reason: string | null;
  update_time: Date;
  blazar_name?: string | null;
  blazar_id?: string | null;
}

/** Reads and writes within one transaction. */
export class LedgerTx {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Serialises the decisions that count a project's leases, across replicas, until commit.
   * Keyed by schema too, so test runs sharing a database never wait on each other.
   */
  async lockProject(project: string): Promise<void> {
    await this.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':leases:' || $1, 0))`, [project]);
  }

  async exists(project: string, leaseId: string): Promise<boolean> {
    const rows: unknown[] = await this.manager.query('SELECT 1 FROM leases WHERE project = $1 AND lease_id = $2', [project, leaseId]);
    return rows.length > 0;
  }

  /** PENDING and ACTIVE leases whose end is still ahead (one past its end is as good as ended). */
  async countLive(project: string, now: Date, excludeUid?: string): Promise<number> {
    const rows: { n: number }[] = await this.manager.query(
      `SELECT count(*)::int AS n FROM leases WHERE project = $1 AND ${LIVE} AND end_date > $2 AND uid IS DISTINCT FROM $3`,
      [project, now, excludeUid ?? null],
    );
    return rows[0].n;
  }

  async getForUpdate(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    const rows: LeaseRow[] = await this.manager.query(`SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2 FOR UPDATE`, [project, leaseId]);
    return rows[0];
  }

  /** A Blazar lease by Blazar's id or name: a live one first, else the latest. */
  async findBlazarForUpdate(project: string, key: { id?: string; name?: string }): Promise<LeaseRow | undefined> {
    const rows: LeaseRow[] = await this.manager.query(
      `SELECT ${LEASE_COLUMNS} FROM leases
        WHERE project = $1 AND origin = 'BLAZAR' AND (blazar_id = $2 OR blazar_name = $3)
        ORDER BY (${LIVE}) DESC, (blazar_id = $2) DESC NULLS LAST, create_time DESC
        LIMIT 1 FOR UPDATE`,
      [project, key.id ?? null, key.name ?? null],
    );
    return rows[0];
  }

  /** Inserts a lease and, in the same statement, the decision that admitted or refused it. */
  async insertLease(lease: LeaseRow, decision?: NewDecision): Promise<LeaseRow> {
    const values: unknown[] = leaseValues(lease);
    const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
    if (!decision) {
      const rows: LeaseRow[] = await this.manager.query(`INSERT INTO leases (${LEASE_COLUMNS}) VALUES (${placeholders}) RETURNING ${LEASE_COLUMNS}`, values);
      return rows[0];
    }
    const d = decisionParams(decision, values.length);
    const rows: LeaseRow[] = await this.manager.query(
      `WITH lease AS (INSERT INTO leases (${LEASE_COLUMNS}) VALUES (${placeholders}) RETURNING ${LEASE_COLUMNS}),
            decision AS (${DECISION_INSERT} VALUES (${d.placeholders}))
       SELECT * FROM lease`,
      [...values, ...d.values],
    );
    return rows[0];
  }

  async changeLease(uid: string, change: LeaseChange): Promise<LeaseRow> {
    const [rows] = (await this.manager.query(
      `UPDATE leases SET name = $2, start_date = $3, end_date = $4, reservations = $5, status = $6, status_reason = $7, update_time = $8,
              blazar_name = COALESCE($9, blazar_name), blazar_id = COALESCE($10, blazar_id)
        WHERE uid = $1 RETURNING ${LEASE_COLUMNS}`,
      [uid, change.name, change.start_date, change.end_date, JSON.stringify(change.reservations), change.status, change.status_reason,
        change.update_time, change.blazar_name ?? null, change.blazar_id ?? null],
    )) as [LeaseRow[], number];
    return rows[0];
  }

  /** Ends a lease and claims its on_end (so it is sent once, by whoever got here first). */
  async terminate(uid: string, now: Date, reason: string, endTime: Date = now): Promise<LeaseRow> {
    const [rows] = (await this.manager.query(
      `UPDATE leases SET status = 'TERMINATED', status_reason = $3, end_time = $4, update_time = $2, on_end_sent = true
        WHERE uid = $1 RETURNING ${LEASE_COLUMNS}`,
      [uid, now, reason, endTime],
    )) as [LeaseRow[], number];
    return rows[0];
  }

  /** Claims the on_end of a lease that ended without it; false when it was sent already. */
  async claimOnEnd(uid: string): Promise<boolean> {
    const [, count] = (await this.manager.query('UPDATE leases SET on_end_sent = true WHERE uid = $1 AND NOT on_end_sent', [uid])) as [unknown, number];
    return count > 0;
  }

  async deleteLease(uid: string): Promise<void> {
    await this.manager.query('DELETE FROM leases WHERE uid = $1', [uid]);
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    const d = decisionParams(decision, 0);
    await this.manager.query(`${DECISION_INSERT} VALUES (${d.placeholders})`, d.values);
  }
}

/** The lease ledger in the service's schema (raw SQL: two tables, locks where counting needs them). */
@Injectable()
export class Ledger {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new LedgerTx(manager)));
  }

  async get(project: string, leaseId: string): Promise<LeaseRow | undefined> {
    const rows: LeaseRow[] = await this.dataSource.query(`SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2`, [project, leaseId]);
    return rows[0];
  }

  /** A project's leases by id, after `after`, in the given statuses (all when empty). */
  list(project: string, statuses: LeaseStatus[], after: string | undefined, limit: number): Promise<LeaseRow[]> {
    return this.dataSource.query(
      `SELECT ${LEASE_COLUMNS} FROM leases
        WHERE project = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2)) AND ($3::text IS NULL OR lease_id > $3)
        ORDER BY lease_id LIMIT $4`,
      [project, statuses, after ?? null, limit],
    );
  }

  decisions(leaseUid: string, after: string | undefined, limit: number): Promise<DecisionRow[]> {
    return this.dataSource.query(
      `SELECT id::text, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id FROM decisions
        WHERE lease_uid = $1 AND ($2::bigint IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [leaseUid, after ?? null, limit],
    );
  }

  async insertDecision(decision: NewDecision): Promise<void> {
    await new LedgerTx(this.dataSource.manager).insertDecision(decision);
  }

  /** PENDING leases whose start came: ACTIVE. */
  async activateStarted(now: Date): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `UPDATE leases SET status = 'ACTIVE', update_time = $1 WHERE status = 'PENDING' AND start_date <= $1 AND end_date > $1`,
      [now],
    )) as [unknown, number];
    return count;
  }

  /**
   * Live leases whose end passed: TERMINATED, with their on_end claimed by this replica
   * (SKIP LOCKED, so replicas share the work and never claim a lease twice).
   */
  claimEnded(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.dataSource
      .query(
        `UPDATE leases SET status = 'TERMINATED', status_reason = 'The end date passed.', end_time = end_date, update_time = $1, on_end_sent = true
          WHERE uid IN (SELECT uid FROM leases WHERE ${LIVE} AND end_date <= $1 ORDER BY end_date LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING ${LEASE_COLUMNS}`,
        [now, limit],
      )
      .then(([rows]: [LeaseRow[], number]) => rows);
  }
}
