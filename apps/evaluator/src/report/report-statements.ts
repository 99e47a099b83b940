import { configurationFlows, memberFlowRows } from './flow-statements';

/** Bigint sums are read `::float8`, which pg hands over as numbers (exact below 2^53). */

/** Plus the transitions stored per configuration before outcomes were (no longer written). */
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

/** Stored before 1.2.0, no longer written. */
export const LEGACY_RULE_COUNTS = `
  SELECT configuration_id AS "configurationId", side, priority, action, count::float8 AS count
  FROM preview_rule_counts WHERE configuration_id = ANY($1::int[])`;

export const TOP_SOURCES = `
  SELECT configuration_id AS "configurationId", host(src_ip) AS "srcIp", count::float8 AS count
  FROM (SELECT configuration_id, src_ip, sum(count) AS count,
               row_number() OVER (PARTITION BY configuration_id ORDER BY sum(count) DESC, src_ip) AS rank
        FROM (${memberFlowRows('$1::int[]')}) f GROUP BY configuration_id, src_ip) ranked
  WHERE rank <= $2 ORDER BY configuration_id, rank`;

export const TOP_PORTS = `
  SELECT configuration_id AS "configurationId", protocol, dest_port AS "destPort", count::float8 AS count
  FROM (SELECT configuration_id, protocol, dest_port, sum(count) AS count,
               row_number() OVER (PARTITION BY configuration_id ORDER BY sum(count) DESC, protocol, dest_port) AS rank
        FROM (${memberFlowRows('$1::int[]')}) f WHERE dest_port >= 0 GROUP BY configuration_id, protocol, dest_port) ranked
  WHERE rank <= $2 ORDER BY configuration_id, rank`;

/** Summed per address before masking, so a block's distinct addresses are a count of rows, not a DISTINCT. */
export const TOP_PREFIXES = `
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

export const TRANSITIONS = `
  SELECT configuration_id AS "configurationId", live_priority AS "livePriority", live_action AS "liveAction",
         experiment_priority AS "experimentPriority", experiment_action AS "experimentAction", sum(count)::float8 AS count
  FROM (${TRANSITION_ROWS}) t
  GROUP BY configuration_id, live_priority, live_action, experiment_priority, experiment_action`;

export const TIME_BUCKETS = `
  SELECT configuration_id AS "configurationId", width_seconds * 1000 AS "widthMs",
         (extract(epoch FROM start_time) * 1000)::float8 AS "startMs",
         evaluated::float8 AS evaluated, changed::float8 AS changed,
         allow_to_deny::float8 AS "allowToDeny", deny_to_allow::float8 AS "denyToAllow"
  FROM preview_time_buckets WHERE configuration_id = ANY($1::int[])`;

export const DEAD_LETTERS = `
  SELECT configuration_id AS "configurationId", reason, messages::float8 AS messages
  FROM preview_dead_letters WHERE configuration_id = ANY($1::int[])`;
