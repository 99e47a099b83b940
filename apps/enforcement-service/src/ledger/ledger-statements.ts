import type { LeaseStatus } from '@rollout/contracts';
import type { DecisionRecord, Lease, LedgerChange } from '@rollout/domain/enforcement';

export interface Statement {
  text: string;
  values: unknown[];
}

export const LEASE_COLUMNS =
  'uid, project, lease_id, origin, blazar_name, blazar_id, name, start_date, end_date, reservations, status, status_reason, creator, region_name, create_time, update_time, end_time, on_end_sent';
const LIVE = `status IN ('PENDING', 'ACTIVE')`;
const DECISION_COLUMNS =
  'lease_uid, project, lease_id, hook, result, filter, message, exempted, steps, time, actor, user_id, request_id';

export type CountingProbe = { exists: string } | { blazar: { id?: string; name?: string } };

const FIND_BLAZAR = `SELECT ${LEASE_COLUMNS} FROM leases
  WHERE project = $1 AND origin = 'BLAZAR' AND (blazar_id = $2 OR blazar_name = $3)
  ORDER BY (${LIVE}) DESC, (blazar_id = $2) DESC NULLS LAST, create_time DESC
  LIMIT 1 FOR UPDATE`;

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

function withDecision(p: Params, write: string, decision?: DecisionRecord): Statement {
  const text = decision ? `WITH lease AS (${write}) ${decisionInsert(p, decision)}` : write;
  return { text, values: p.values };
}

export const ledgerStatements = {
  insertDecision(d: DecisionRecord): Statement {
    const p = new Params();
    return { text: decisionInsert(p, d), values: p.values };
  },

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

  /** A live one first, else the latest. */
  findBlazarForUpdate(project: string, key: { id?: string; name?: string }): Statement {
    return { text: FIND_BLAZAR, values: [project, key.id ?? null, key.name ?? null] };
  },

  /** One statement under the project's lock; every lease column is null when there is none. */
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

  /** SKIP LOCKED: replicas share the work. */
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

  activateStarted(now: Date): Statement {
    return {
      text: `UPDATE leases SET status = 'ACTIVE', update_time = $1 WHERE status = 'PENDING' AND start_date <= $1 AND end_date > $1`,
      values: [now],
    };
  },

  /** Keyed by schema too: test runs share a database. */
  lockProject(project: string): Statement {
    return {
      text: `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':leases:' || $1, 0))`,
      values: [project],
    };
  },
};
