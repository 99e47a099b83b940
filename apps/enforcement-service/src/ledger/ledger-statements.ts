import type {
  DecisionHook,
  DecisionResult,
  DecisionStep,
  LeaseOrigin,
  LeaseStatus,
} from '@rollout/contracts';
import type { LeaseRequest, Reservation } from '@rollout/domain/enforcement';

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

/** The lease of a row as the chain sees it. */
export function domainLease(row: LeaseRow): LeaseRequest {
  return {
    name: row.name,
    startDate: row.start_date,
    endDate: row.end_date,
    reservations: row.reservations,
  };
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

/** What a counting decision knows when its transaction opens. */
export interface CountingFacts {
  /** PENDING and ACTIVE leases of the project whose end is ahead. */
  live: number;
  /** `exists`: whether the lease id is taken. */
  taken: boolean;
  /** `blazar`: the lease Blazar names, a live one first. */
  tracked?: LeaseRow;
}

export interface Statement {
  text: string;
  values: unknown[];
}

export const LEASE_COLUMNS =
  'uid, project, lease_id, origin, blazar_name, blazar_id, name, start_date, end_date, reservations, status, status_reason, creator, region_name, create_time, update_time, end_time, on_end_sent';
const LIVE = `status IN ('PENDING', 'ACTIVE')`;
const DECISION_COLUMNS =
  'lease_uid, project, lease_id, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id';

/** What a counting decision looks up: whether a lease id is taken, or the lease Blazar names. */
export type CountingProbe = { exists: string } | { blazar: { id?: string; name?: string } };

const FIND_BLAZAR = `SELECT ${LEASE_COLUMNS} FROM leases
  WHERE project = $1 AND origin = 'BLAZAR' AND (blazar_id = $2 OR blazar_name = $3)
  ORDER BY (${LIVE}) DESC, (blazar_id = $2) DESC NULLS LAST, create_time DESC
  LIMIT 1 FOR UPDATE`;

/** Collects the values of one statement, each named by its `$n` placeholder. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  list(values: unknown[]): string {
    return values.map((v) => this.add(v)).join(', ');
  }
}

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

const decisionValues = (d: NewDecision) => [
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
];

const decisionInsert = (p: Params, d: NewDecision) =>
  `INSERT INTO decisions (${DECISION_COLUMNS}) VALUES (${p.list(decisionValues(d))})`;

/** A lease write and the decision about it, as one statement returning the lease. */
function withDecision(p: Params, write: string, decision?: NewDecision): Statement {
  const text = decision
    ? `WITH lease AS (${write}), decision AS (${decisionInsert(p, decision)}) SELECT * FROM lease`
    : write;
  return { text, values: p.values };
}

/** The statements of the lease ledger, every value a bind parameter. */
export const ledgerStatements = {
  insertDecision(d: NewDecision): Statement {
    const p = new Params();
    return { text: decisionInsert(p, d), values: p.values };
  },

  insertLease(lease: LeaseRow, decision?: NewDecision): Statement {
    const p = new Params();
    const write = `INSERT INTO leases (${LEASE_COLUMNS}) VALUES (${p.list(leaseValues(lease))}) RETURNING ${LEASE_COLUMNS}`;
    return withDecision(p, write, decision);
  },

  changeLease(uid: string, c: LeaseChange, decision?: NewDecision): Statement {
    const p = new Params();
    const write = `UPDATE leases SET name = ${p.add(c.name)}, start_date = ${p.add(c.start_date)}, end_date = ${p.add(c.end_date)},
            reservations = ${p.add(JSON.stringify(c.reservations))}, status = ${p.add(c.status)},
            status_reason = ${p.add(c.status_reason)}, update_time = ${p.add(c.update_time)},
            blazar_name = COALESCE(${p.add(c.blazar_name ?? null)}, blazar_name), blazar_id = COALESCE(${p.add(c.blazar_id ?? null)}, blazar_id)
          WHERE uid = ${p.add(uid)} RETURNING ${LEASE_COLUMNS}`;
    return withDecision(p, write, decision);
  },

  /** PENDING and ACTIVE leases of a project whose end is ahead. */
  countLive(project: string, now: Date): Statement {
    return {
      text: `SELECT count(*)::int AS n FROM leases WHERE project = $1 AND ${LIVE} AND end_date > $2`,
      values: [project, now],
    };
  },

  /** A Blazar lease by Blazar's id or name, locked: a live one first, else the latest. */
  findBlazarForUpdate(project: string, key: { id?: string; name?: string }): Statement {
    return { text: FIND_BLAZAR, values: [project, key.id ?? null, key.name ?? null] };
  },

  /**
   * What a counting decision reads once it holds its project's lock, in one statement: the live
   * leases (`live_count`) and the lease it looks up (every column null when there is none).
   */
  countingFacts(project: string, now: Date, probe: CountingProbe): Statement {
    const [find, values] =
      'exists' in probe
        ? ['SELECT uid FROM leases WHERE project = $1 AND lease_id = $2', [probe.exists]]
        : [FIND_BLAZAR, [probe.blazar.id ?? null, probe.blazar.name ?? null]];
    return {
      text: `SELECT found.*, live.n AS live_count
               FROM (SELECT count(*)::int AS n FROM leases WHERE project = $1 AND ${LIVE} AND end_date > $${values.length + 2}) live
               LEFT JOIN LATERAL (${find}) found ON true`,
      values: [project, ...values, now],
    };
  },

  getForUpdate(project: string, leaseId: string): Statement {
    return {
      text: `SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2 FOR UPDATE`,
      values: [project, leaseId],
    };
  },

  /** Ends a lease and claims its on_end. */
  terminate(uid: string, now: Date, reason: string, endTime: Date): Statement {
    return {
      text: `UPDATE leases SET status = 'TERMINATED', status_reason = $3, end_time = $4, update_time = $2, on_end_sent = true
              WHERE uid = $1 RETURNING ${LEASE_COLUMNS}`,
      values: [uid, now, reason, endTime],
    };
  },

  /** Claims the on_end of a lease that ended without it; no row when it was sent already. */
  claimOnEnd(uid: string): Statement {
    return {
      text: 'UPDATE leases SET on_end_sent = true WHERE uid = $1 AND NOT on_end_sent',
      values: [uid],
    };
  },

  deleteLease(uid: string): Statement {
    return { text: 'DELETE FROM leases WHERE uid = $1', values: [uid] };
  },

  /** Live leases whose end passed, TERMINATED with their on_end claimed (SKIP LOCKED: replicas share the work). */
  claimEnded(now: Date, limit: number): Statement {
    return {
      text: `UPDATE leases SET status = 'TERMINATED', status_reason = 'The end date passed.', end_time = end_date, update_time = $1, on_end_sent = true
              WHERE uid IN (SELECT uid FROM leases WHERE ${LIVE} AND end_date <= $1 ORDER BY end_date LIMIT $2 FOR UPDATE SKIP LOCKED)
              RETURNING ${LEASE_COLUMNS}`,
      values: [now, limit],
    };
  },

  get(project: string, leaseId: string): Statement {
    return {
      text: `SELECT ${LEASE_COLUMNS} FROM leases WHERE project = $1 AND lease_id = $2`,
      values: [project, leaseId],
    };
  },

  /** A project's leases by id, after `after`, in the given statuses (all when empty). */
  list(
    project: string,
    statuses: LeaseStatus[],
    after: string | undefined,
    limit: number,
  ): Statement {
    return {
      text: `SELECT ${LEASE_COLUMNS} FROM leases
        WHERE project = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2)) AND ($3::text IS NULL OR lease_id > $3)
        ORDER BY lease_id LIMIT $4`,
      values: [project, statuses, after ?? null, limit],
    };
  },

  decisions(leaseUid: string, after: string | undefined, limit: number): Statement {
    return {
      text: `SELECT id::text, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id FROM decisions
        WHERE lease_uid = $1 AND ($2::bigint IS NULL OR decisions.id > $2) ORDER BY decisions.id LIMIT $3`,
      values: [leaseUid, after ?? null, limit],
    };
  },

  /** PENDING leases whose start came: ACTIVE. */
  activateStarted(now: Date): Statement {
    return {
      text: `UPDATE leases SET status = 'ACTIVE', update_time = $1 WHERE status = 'PENDING' AND start_date <= $1 AND end_date > $1`,
      values: [now],
    };
  },

  /** Takes a project's lock until the transaction ends (keyed by schema too: test runs share a database). */
  lockProject(project: string): Statement {
    return {
      text: `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':leases:' || $1, 0))`,
      values: [project],
    };
  },
};
