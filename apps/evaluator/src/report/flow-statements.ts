/**
 * A cohort's flow is member i's when bit i of its deny mask differs from the live action (an
 * integer test, cheaper than the actions' text). `ids` is an SQL expression.
 */

/** Positions are 1-based. */
const memberships = (ids: string) => `
  SELECT c.id AS cohort_id, m.id AS configuration_id, array_position(c.configuration_ids, m.id) AS position
  FROM unnest(${ids}) AS m(id) JOIN preview_cohorts c ON c.configuration_ids @> ARRAY[m.id]`;

/** Not merged: enough for sums. */
export const memberFlowRows = (ids: string) => `
  SELECT m.configuration_id, f.id, f.direction, f.src_ip, f.dest_ip, f.protocol, f.dest_port,
         f.live_priority AS live_rule, f.experiment_priorities[m.position] AS experiment_rule, f.live_action,
         f.count, f.first_event_time, f.last_event_time
  FROM (${memberships(ids)}) m JOIN preview_outcome_flows f ON f.cohort_id = m.cohort_id
  WHERE (f.mask >> (m.position - 1)) & 1 <> (f.live_action = 'deny')::int`;

/** Merged by connection and both deciding rules; a flow's id is its first row's, which no later row changes. */
export const configurationFlows = (ids: string, withRowIds = false) => `
  SELECT configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule, live_action,
         min(id) AS id, ${withRowIds ? 'array_agg(id ORDER BY id)' : 'NULL::bigint[]'} AS row_ids, sum(count) AS count,
         min(first_event_time) AS first_event_time, max(last_event_time) AS last_event_time
  FROM (${memberFlowRows(ids)}) r
  GROUP BY configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule, live_action`;

export const flowSamples = (rowIds: string) => `
  (SELECT jsonb_path_query_array(jsonb_agg(s.samples ORDER BY s.id), '$[*][*]')
   FROM preview_outcome_flows s WHERE s.id = ANY(${rowIds}))`;

export const configurationOutside = (ids: string) => `
  SELECT m.configuration_id, sum(o.outside) AS outside
  FROM (${memberships(ids)}) m JOIN preview_outcomes o ON o.cohort_id = m.cohort_id
  WHERE o.outside > 0 AND substr(o.experiment_actions, m.position, 1) <> left(o.live_action, 1)
  GROUP BY m.configuration_id`;
