import { Injectable } from '@nestjs/common';
import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import { ReportReading, ReportRows, ruleCountMargins } from '@rollout/domain/preview';
import { inTransaction, poolOf } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import { readDisagreements } from './disagreement-reads';
import { configurationFlows, configurationOutside, memberFlowRows } from './flow-statements';
import { Queryable, rowsOf } from './rows';
import { DataSource } from 'typeorm';

/** The read side of the report's tables: what previewReport shows. */
@Injectable()
export class ReportRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  /**
   * An experiment's report as stored; nothing for an experiment that evaluated nothing. The
   * totals and their breakdowns are cheap and read in one repeatable-read, read-only transaction,
   * so they add up as of one moment. The flows' reads scan up to EVALUATOR_MAX_FLOWS rows each:
   * they run at once, each on a connection of its own (one connection answering them in turn made
   * the report a third slower at 40,000 flows), and may include a batch counted meanwhile.
   */
  async read(
    experiment: string,
    reading: ReportReading,
    page: ReportPage,
  ): Promise<ReportPageRows> {
    let more = false;
    const counts = await inTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const configurations = await readConfigurations(client, experiment, page);
      more = configurations.length > page.size;
      if (more) configurations.length = page.size;
      if (configurations.length === 0) return undefined;
      const ids = configurations.map((c) => c.id);
      await addFlowCounts(client, configurations);
      const transitions = await section<'transitions'>(client, TRANSITIONS, [ids]);
      const legacyRuleCounts = await section<'ruleCounts'>(client, LEGACY_RULE_COUNTS, [ids]);
      return {
        configurations,
        ruleCounts: ruleCountMargins(transitions, legacyRuleCounts),
        transitions,
        timeBuckets: await section<'timeBuckets'>(client, TIME_BUCKETS, [ids]),
        deadLetters: await section<'deadLetters'>(client, DEAD_LETTERS, [ids]),
        disagreements: await readDisagreements(client, ids),
      };
    });
    if (!counts) return { rows: noRows(), more };
    const { configurations } = counts;
    const ids = configurations.map((c) => c.id);
    const covered = reading.coverageOf
      ? configurations.find(
          (c) =>
            c.experimentEtag === reading.coverageOf?.experimentEtag &&
            c.livePolicyEtag === reading.coverageOf.livePolicyEtag,
        )
      : undefined;
    const judged = reading.denyToAllowFrom?.judged(configurations);
    const [topSources, topPorts, topPrefixes, coverageFlows, denyToAllowFrom] = await Promise.all([
      section<'topSources'>(this.pool, TOP_SOURCES, [ids, PREVIEW_REPORT_TOP]),
      section<'topPorts'>(this.pool, TOP_PORTS, [ids, PREVIEW_REPORT_TOP]),
      section<'topPrefixes'>(this.pool, TOP_PREFIXES, [ids, PREVIEW_REPORT_TOP]),
      covered && readChangedConnections(this.pool, covered.id),
      judged && reading.denyToAllowFrom
        ? readDenyToAllowFrom(this.pool, judged.id, reading.denyToAllowFrom.ranges)
        : new Map<string, number>(),
    ]);
    const rows = {
      ...counts,
      topSources,
      topPorts,
      topPrefixes,
      ...(covered && coverageFlows
        ? { coverageFlows: { configurationId: covered.id, flows: coverageFlows } }
        : {}),
      denyToAllowFrom,
    };
    return { rows, more };
  }
}

/** Which configurations a read covers: at most `size`, those older than `before` when given. */
export interface ReportPage {
  before?: number;
  size: number;
}

/** A page's rows, and whether older configurations follow. */
export interface ReportPageRows {
  rows: ReportRows;
  more: boolean;
}

// The sections' statements. Bigint sums are read `::float8`, which pg hands over as numbers
// (exact below 2^53), and columns are named as ReportRows names them: rows need no translating.

/**
 * Each configuration's rule transitions: its column of the outcomes of every cohort it was in,
 * plus the transitions stored per configuration before outcomes were (no longer written).
 */
const TRANSITION_ROWS = `
  SELECT m.id AS configuration_id, o.live_priority, o.live_action,
         o.experiment_priorities[m.position] AS experiment_priority,
         CASE substr(o.experiment_actions, m.position, 1) WHEN 'd' THEN 'deny' ELSE 'allow' END AS experiment_action,
         o.count
  FROM (SELECT c.id AS cohort_id, ids.id, array_position(c.configuration_ids, ids.id) AS position
        FROM unnest($1::int[]) AS ids(id) JOIN preview_cohorts c ON c.configuration_ids @> ARRAY[ids.id]) m
  JOIN preview_outcomes o ON o.cohort_id = m.cohort_id
  UNION ALL
  SELECT configuration_id, live_priority, live_action, experiment_priority, experiment_action, count
  FROM preview_transitions WHERE configuration_id = ANY($1::int[])`;

/** The rule counts stored before 1.2.0 (no longer written); the rest are the transitions' margins. */
const LEGACY_RULE_COUNTS = `
  SELECT configuration_id AS "configurationId", side, priority, action, count::float8 AS count
  FROM preview_rule_counts WHERE configuration_id = ANY($1::int[])`;

const TOP_SOURCES = `
  SELECT configuration_id AS "configurationId", host(src_ip) AS "srcIp", count::float8 AS count
  FROM (SELECT configuration_id, src_ip, sum(count) AS count,
               row_number() OVER (PARTITION BY configuration_id ORDER BY sum(count) DESC, src_ip) AS rank
        FROM (${memberFlowRows('$1::int[]')}) f GROUP BY configuration_id, src_ip) ranked
  WHERE rank <= $2 ORDER BY configuration_id, rank`;

const TOP_PORTS = `
  SELECT configuration_id AS "configurationId", protocol, dest_port AS "destPort", count::float8 AS count
  FROM (SELECT configuration_id, protocol, dest_port, sum(count) AS count,
               row_number() OVER (PARTITION BY configuration_id ORDER BY sum(count) DESC, protocol, dest_port) AS rank
        FROM (${memberFlowRows('$1::int[]')}) f WHERE dest_port >= 0 GROUP BY configuration_id, protocol, dest_port) ranked
  WHERE rank <= $2 ORDER BY configuration_id, rank`;

/**
 * The blocks with the most changed events, exact over the flows: the flows summed per source and
 * per destination address first (so a block's distinct addresses are a count of rows, not a
 * DISTINCT), then each address masked to /24 and /16 (IPv4) or /64 and /48 (IPv6) and summed per
 * block, and the top of each (configuration, side, prefix length). One statement for the section.
 */
const TOP_PREFIXES = `
  WITH flows AS (${configurationFlows('$1::int[]')}),
  addresses AS (
    SELECT configuration_id, 'source' AS side, src_ip AS ip, sum(count) AS count, count(*) AS flows
    FROM flows GROUP BY configuration_id, src_ip
    UNION ALL
    SELECT configuration_id, 'destination', dest_ip, sum(count), count(*)
    FROM flows GROUP BY configuration_id, dest_ip
  ), blocks AS (
    SELECT configuration_id, side, network(set_masklen(ip, CASE family(ip) WHEN 4 THEN l.v4 ELSE l.v6 END)) AS prefix,
           sum(count) AS count, sum(flows) AS flows, count(*) AS addresses
    FROM addresses CROSS JOIN (VALUES (24, 64), (16, 48)) AS l(v4, v6)
    GROUP BY configuration_id, side, prefix
  )
  SELECT configuration_id AS "configurationId", side, text(prefix) AS prefix, masklen(prefix) AS "prefixLength",
         count::float8 AS count, flows::int AS flows, addresses::int AS addresses
  FROM (SELECT *, row_number() OVER (PARTITION BY configuration_id, side, masklen(prefix)
                                     ORDER BY count DESC, prefix) AS rank FROM blocks) ranked
  WHERE rank <= $2
  ORDER BY configuration_id, side, family(prefix), masklen(prefix) DESC, count DESC, prefix`;

const TRANSITIONS = `
  SELECT configuration_id AS "configurationId", live_priority AS "livePriority", live_action AS "liveAction",
         experiment_priority AS "experimentPriority", experiment_action AS "experimentAction", sum(count)::float8 AS count
  FROM (${TRANSITION_ROWS}) t
  GROUP BY configuration_id, live_priority, live_action, experiment_priority, experiment_action`;

const TIME_BUCKETS = `
  SELECT configuration_id AS "configurationId", width_seconds * 1000 AS "widthMs",
         (extract(epoch FROM start_time) * 1000)::float8 AS "startMs",
         evaluated::float8 AS evaluated, changed::float8 AS changed,
         allow_to_deny::float8 AS "allowToDeny", deny_to_allow::float8 AS "denyToAllow"
  FROM preview_time_buckets WHERE configuration_id = ANY($1::int[])`;

const DEAD_LETTERS = `
  SELECT configuration_id AS "configurationId", reason, messages::float8 AS messages
  FROM preview_dead_letters WHERE configuration_id = ANY($1::int[])`;

/** The rows of one of ReportRows' sections, as its statement names and types them. */
async function section<
  K extends
    | 'ruleCounts'
    | 'topSources'
    | 'topPorts'
    | 'topPrefixes'
    | 'transitions'
    | 'timeBuckets'
    | 'deadLetters',
>(db: Queryable, sql: string, params: unknown[]): Promise<ReportRows[K]> {
  return (await db.query(sql, params)).rows as ReportRows[K];
}

function noRows(): ReportRows {
  return {
    configurations: [],
    ruleCounts: [],
    topSources: [],
    topPorts: [],
    topPrefixes: [],
    transitions: [],
    timeBuckets: [],
    deadLetters: [],
    disagreements: [],
    denyToAllowFrom: new Map(),
  };
}

/**
 * A page of an experiment's configurations that evaluated something, newest first, with the
 * TRAFFIC drops seen since each began; one more than the page holds says whether more follow.
 */
function readConfigurations(
  db: Queryable,
  experiment: string,
  page: ReportPage,
): Promise<ReportRows['configurations']> {
  return rowsOf(
    db,
    `SELECT c.id, v.experiment_etag AS "experimentEtag", c.live_policy_etag AS "livePolicyEtag",
            c.evaluated::float8 AS evaluated, c.changed::float8 AS changed,
            c.allow_to_deny::float8 AS "allowToDeny", c.deny_to_allow::float8 AS "denyToAllow",
            c.unchanged_allow::float8 AS "unchangedAllow", c.unchanged_deny::float8 AS "unchangedDeny",
            c.changed_outside_flows::float8 AS "changedOutsideFlows",
            c.redelivered::float8 AS "redeliveredEvents",
            d.dropped::float8 AS "trafficDroppedMessages", d.undetermined::float8 AS "trafficDropUndetermined",
            c.first_event_time AS "firstEventTime", c.last_event_time AS "lastEventTime"
     FROM preview_configurations c JOIN preview_versions v ON v.id = c.version_id
     CROSS JOIN LATERAL (
       SELECT COALESCE(sum(dropped), 0) AS dropped, COALESCE(sum(undetermined), 0) AS undetermined
       FROM preview_traffic_drops WHERE observed_at >= c.created_at
     ) d
     WHERE c.experiment = $1 AND c.evaluated > 0 AND ($2::int IS NULL OR c.id < $2)
     ORDER BY c.id DESC LIMIT $3`,
    [experiment, page.before ?? null, page.size + 1],
  );
}

/**
 * Each configuration's distinct changed flows, and the changed events outside them: counted over
 * its cohorts' flows and outcomes (plus what was counted outside per configuration before).
 */
async function addFlowCounts(
  db: Queryable,
  configurations: ReportRows['configurations'],
): Promise<void> {
  const rows = await rowsOf<{ id: number; flows: number; outside: number }>(
    db,
    `SELECT ids.id, COALESCE(f.flows, 0)::int AS flows, COALESCE(o.outside, 0)::float8 AS outside
     FROM unnest($1::int[]) AS ids(id)
     LEFT JOIN (SELECT configuration_id, count(*) AS flows FROM (${configurationFlows('$1::int[]')}) f
                GROUP BY configuration_id) f ON f.configuration_id = ids.id
     LEFT JOIN (${configurationOutside('$1::int[]')}) o ON o.configuration_id = ids.id`,
    [configurations.map((c) => c.id)],
  );
  const counts = new Map(rows.map((row) => [row.id, row]));
  for (const configuration of configurations) {
    const count = counts.get(configuration.id);
    configuration.flows = count?.flows ?? 0;
    configuration.changedOutsideFlows += count?.outside ?? 0;
  }
}

/** The connections of a configuration's changed flows and their events (its coverage and changedByRegion). */
async function readChangedConnections(
  db: Queryable,
  configurationId: number,
): Promise<NonNullable<ReportRows['coverageFlows']>['flows']> {
  const rows = await rowsOf<{
    direction: 'INGRESS' | 'EGRESS';
    srcIp: string;
    destIp: string;
    protocol: string;
    destPort: number | null;
    count: number;
  }>(
    db,
    `SELECT direction, host(src_ip) AS "srcIp", host(dest_ip) AS "destIp", protocol, NULLIF(dest_port, -1) AS "destPort",
            count::float8 AS count
     FROM (${configurationFlows('ARRAY[$1::int]')}) f`,
    [configurationId],
  );
  return rows.map(({ destPort, ...flow }) => (destPort === null ? flow : { ...flow, destPort }));
}

/**
 * The deny → allow events from each source range in a configuration's flows (the
 * `noDenyToAllowFrom` readiness gates), 0 for a range none came from.
 */
async function readDenyToAllowFrom(
  db: Queryable,
  configurationId: number,
  ranges: readonly string[],
): Promise<Map<string, number>> {
  const rows = await rowsOf<{ range: string; count: number }>(
    db,
    `SELECT r.range, COALESCE(sum(f.count), 0)::float8 AS count
       FROM unnest($2::text[]) AS r(range)
       LEFT JOIN (${memberFlowRows('ARRAY[$1::int]')}) f
         ON f.live_action = 'deny' AND f.src_ip <<= r.range::inet
       GROUP BY r.range`,
    [configurationId, ranges],
  );
  return new Map(rows.map((row) => [row.range, row.count]));
}
