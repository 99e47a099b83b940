import { ReportRows, StoredCohortFlow, pairDisagreements } from '@rollout/domain/preview';
import { Queryable, rowsOf } from './rows';

/**
 * The disagreement section: for each configuration, every other experiment ACTIVE with it and
 * the events the two decide differently, with the PREVIEW_REPORT_TOP flows carrying most of
 * them. The one place that knows how disagreements are stored: the cohorts the counting
 * transaction writes (preview_cohorts, their verdict patterns and kept flows), read as stored,
 * each pair derived by the pure pairDisagreements.
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
  const flows = await rowsOf<StoredCohortFlow & { cohortId: number }>(
    db,
    `SELECT cohort_id AS "cohortId", direction, host(src_ip) AS "srcIp", host(dest_ip) AS "destIp", protocol,
            dest_port AS "destPort", mask, count::float8 AS count
     FROM preview_cohort_flows WHERE cohort_id = ANY($1::int[])`,
    [cohorts.map((c) => c.id)],
  );
  const members = await rowsOf<{ id: number; experiment: string; experimentEtag: string }>(
    db,
    `SELECT c.id, c.experiment, v.experiment_etag AS "experimentEtag" FROM preview_configurations c
     JOIN preview_versions v ON v.id = c.version_id WHERE c.id = ANY($1::int[])`,
    [[...new Set(cohorts.flatMap((c) => c.configurationIds))]],
  );
  const flowsOf = new Map<number, StoredCohortFlow[]>();
  for (const { cohortId, ...flow } of flows) {
    let list = flowsOf.get(cohortId);
    if (!list) flowsOf.set(cohortId, (list = []));
    list.push(flow);
  }
  const names = new Map(members.map((m) => [m.id, m]));
  return (
    pairDisagreements(
      cohorts.map((c) => ({ ...c, flows: flowsOf.get(c.id) ?? [] })),
      ids,
    )
      // A member retention removed has no name any more: its pairs go with it.
      .filter((pair) => names.has(pair.otherId))
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
      }))
  );
}
