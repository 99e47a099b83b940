import type {
  DecisionHook,
  DecisionResult,
  DecisionStep,
  LeaseOrigin,
  LeaseStatus,
} from '@rollout/contracts';
import type { DecisionRecord, Lease, LedgerChange, Reservation } from '@rollout/domain/enforcement';

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

export function leaseOfRow(row: LeaseRow): Lease {
  return {
    uid: row.uid,
    leaseId: row.lease_id,
    project: row.project,
    origin: row.origin,
    blazarName: row.blazar_name,
    blazarId: row.blazar_id,
    name: row.name,
    startDate: row.start_date,
    endDate: row.end_date,
    reservations: row.reservations,
    status: row.status,
    statusReason: row.status_reason,
    creator: row.creator,
    regionName: row.region_name,
    createTime: row.create_time,
    updateTime: row.update_time,
    endTime: row.end_time,
    onEndSent: row.on_end_sent,
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

/** A decision read back from the ledger, for the API's list of a lease's decisions. */
export type StoredDecision = Omit<DecisionRecord, 'leaseUid' | 'project' | 'leaseId'> & {
  id: string;
};

export function decisionOfRow(row: DecisionRow): StoredDecision {
  return {
    id: row.id,
    hook: row.hook,
    result: row.result,
    ...(row.filter !== null ? { filter: row.filter } : {}),
    ...(row.message !== null ? { message: row.message } : {}),
    exempted: row.exempted,
    steps: row.steps,
    time: row.time,
    actor: row.actor,
    userId: row.user_id,
    ...(row.request_id !== null ? { requestId: row.request_id } : {}),
  };
}

/** What a counting decision knows when its transaction opens. */
export interface CountingFacts {
  /** PENDING and ACTIVE leases of the project whose end is ahead. */
  live: number;
  /** `exists`: whether the lease id is taken. */
  taken: boolean;
  /** `blazar`: the lease Blazar names, a live one first. */
  tracked?: Lease;
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

const leaseValues = (l: Lease) => [
  l.uid,
  l.project,
  l.leaseId,
  l.origin,
  l.blazarName,
  l.blazarId,
  l.name,
  l.startDate,
  l.endDate,
  JSON.stringify(l.reservations),
  l.status,
  l.statusReason,
  l.creator,
  l.regionName,
  l.createTime,
  l.updateTime,
  l.endTime,
  l.onEndSent,
];

const decisionValues = (d: DecisionRecord) => [
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

const decisionInsert = (p: Params, d: DecisionRecord) =>
  `INSERT INTO decisions (${DECISION_COLUMNS}) VALUES (${p.list(decisionValues(d))})`;

/** A lease write and the decision about it, as one statement. */
function withDecision(p: Params, write: string, decision?: DecisionRecord): Statement {
  const text = decision ? `WITH lease AS (${write}) ${decisionInsert(p, decision)}` : write;
  return { text, values: p.values };
}

/** The statements of the lease ledger, every value a bind parameter. */
export const ledgerStatements = {
  insertDecision(d: DecisionRecord): Statement {
    const p = new Params();
    return { text: decisionInsert(p, d), values: p.values };
  },

  /** One write a decider asked for. */
  change(change: LedgerChange): Statement {
    const p = new Params();
    switch (change.kind) {
      case 'add':
        return withDecision(
          p,
          `INSERT INTO leases (${LEASE_COLUMNS}) VALUES (${p.list(leaseValues(change.lease))})`,
          change.decision,
        );
      case 'save': {
        const l = change.lease;
        const write = `UPDATE leases SET name = ${p.add(l.name)}, start_date = ${p.add(l.startDate)}, end_date = ${p.add(l.endDate)},
            reservations = ${p.add(JSON.stringify(l.reservations))}, status = ${p.add(l.status)},
            status_reason = ${p.add(l.statusReason)}, update_time = ${p.add(l.updateTime)}, end_time = ${p.add(l.endTime)},
            on_end_sent = ${p.add(l.onEndSent)}, blazar_name = ${p.add(l.blazarName)}, blazar_id = ${p.add(l.blazarId)}
          WHERE uid = ${p.add(l.uid)}`;
        return withDecision(p, write, change.decision);
      }
      case 'record':
        return { text: decisionInsert(p, change.decision), values: p.values };
      case 'remove':
        return { text: 'DELETE FROM leases WHERE uid = $1', values: [change.uid] };
    }
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
