import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import {
  PairDisagreement,
  PairDisagreementFlow,
  ReportRows,
  StoredPairFlows,
  pairDisagreements,
} from '@rollout/domain/preview';
import { Queryable, rowsOf } from './rows';

/**
 * Postgres hands over only the listed pairs' top flows and totals, so a report's work and memory
 * do not grow with the experiments an experiment has been previewed beside.
 */
export async function readDisagreements(
  db: Queryable,
  ids: readonly number[],
): Promise<ReportRows['disagreements']> {
  const cohorts = await rowsOf<{
    id: number;
    configurationIds: number[];
    masks: { mask: number; events: number }[];
  }>(
    db,
    `SELECT c.id, c.configuration_ids AS "configurationIds",
            coalesce((SELECT json_agg(json_build_object('mask', m.mask, 'events', m.events::float8))
                      FROM preview_cohort_masks m WHERE m.cohort_id = c.id), '[]') AS masks
     FROM preview_cohorts c WHERE c.configuration_ids && $1::int[]`,
    [ids],
  );
  if (cohorts.length === 0) return [];
  const members = await rowsOf<{ id: number; experiment: string; experimentEtag: string }>(
    db,
    `SELECT c.id, c.experiment, v.experiment_etag AS "experimentEtag" FROM preview_configurations c
     JOIN preview_versions v ON v.id = c.version_id WHERE c.id = ANY($1::int[])`,
    [[...new Set(cohorts.flatMap((c) => c.configurationIds))]],
  );
  const names = new Map(members.map((m) => [m.id, m]));
  // A member retention removed has no name any more: its pairs go with it.
  const named = (pair: { otherId: number }) => names.has(pair.otherId);
  const flows = await readPairFlows(db, listedPairs(pairDisagreements(cohorts, ids).filter(named)));
  return pairDisagreements(cohorts, ids, flows)
    .filter(named)
    .map((pair) => ({
      configurationId: pair.configurationId,
      experiment: names.get(pair.otherId)!.experiment,
      experimentEtag: names.get(pair.otherId)!.experimentEtag,
      events: pair.events,
      topFlows: pair.topFlows.map((f) => ({
        direction: f.direction,
        srcIp: f.srcIp,
        destIp: f.destIp,
        protocol: f.protocol,
        ...(f.destPort >= 0 ? { destPort: f.destPort } : {}),
        action: f.action,
        otherAction: f.action === 'allow' ? ('deny' as const) : ('allow' as const),
        count: f.count,
      })),
      eventsOutsideFlows: pair.outside,
    }));
}

function listedPairs(pairs: readonly PairDisagreement[]): PairDisagreement[] {
  const listed = new Map<number, number>();
  return pairs.filter((pair) => {
    const n = listed.get(pair.configurationId) ?? 0;
    listed.set(pair.configurationId, n + 1);
    return n < PREVIEW_REPORT_TOP;
  });
}

/** Ties by connection as text in byte order, then action. */
async function readPairFlows(
  db: Queryable,
  pairs: readonly PairDisagreement[],
): Promise<StoredPairFlows[]> {
  if (pairs.length === 0) return [];
  const rows = await rowsOf<
    PairDisagreementFlow & { configurationId: number; otherId: number; kept: number }
  >(
    db,
    `WITH pairs AS (
       SELECT c.id AS cohort_id, m.id AS configuration_id, (m.pos - 1)::int AS i, o.id AS other_id, (o.pos - 1)::int AS j
       FROM preview_cohorts c
       CROSS JOIN LATERAL unnest(c.configuration_ids) WITH ORDINALITY AS m(id, pos)
       CROSS JOIN LATERAL unnest(c.configuration_ids) WITH ORDINALITY AS o(id, pos)
       JOIN unnest($1::int[], $3::int[]) AS w(configuration_id, other_id)
         ON w.configuration_id = m.id AND w.other_id = o.id
       WHERE c.configuration_ids && $1::int[]
     ), flows AS (
       SELECT p.configuration_id, p.other_id, f.direction, host(f.src_ip) AS src_ip, host(f.dest_ip) AS dest_ip,
              f.protocol, f.dest_port, CASE WHEN (f.mask >> p.i) & 1 = 1 THEN 'deny' ELSE 'allow' END AS action,
              sum(f.count)::float8 AS count
       FROM pairs p JOIN (
         SELECT cohort_id, direction, src_ip, dest_ip, protocol, dest_port, mask, count FROM preview_outcome_flows
         UNION ALL -- flows kept by mask alone before flows were kept by outcome
         SELECT cohort_id, direction, src_ip, dest_ip, protocol, dest_port, mask, count FROM preview_cohort_flows
       ) f ON f.cohort_id = p.cohort_id
       WHERE (f.mask >> p.i) & 1 <> (f.mask >> p.j) & 1
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
     ), ranked AS (
       SELECT *, sum(count) OVER pair AS kept,
              row_number() OVER (pair ORDER BY count DESC, direction COLLATE "C", src_ip COLLATE "C",
                                 dest_ip COLLATE "C", protocol COLLATE "C", dest_port, action COLLATE "C") AS rank
       FROM flows WINDOW pair AS (PARTITION BY configuration_id, other_id)
     )
     SELECT configuration_id AS "configurationId", other_id AS "otherId", direction, src_ip AS "srcIp",
            dest_ip AS "destIp", protocol, dest_port AS "destPort", action, count, kept
     FROM ranked WHERE rank <= $2 ORDER BY configuration_id, other_id, rank`,
    [pairs.map((p) => p.configurationId), PREVIEW_REPORT_TOP, pairs.map((p) => p.otherId)],
  );
  const stored = new Map<string, StoredPairFlows & { top: PairDisagreementFlow[] }>();
  for (const { configurationId, otherId, kept, ...flow } of rows) {
    const key = `${configurationId},${otherId}`;
    let pair = stored.get(key);
    if (!pair) stored.set(key, (pair = { configurationId, otherId, kept, top: [] }));
    pair.top.push(flow);
  }
  return [...stored.values()];
}
