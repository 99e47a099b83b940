import { Injectable } from '@nestjs/common';
import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import { DataSource } from 'typeorm';
import { DisagreementsRepository } from '../counting/disagreements.repository';
import {
  BucketRow,
  ConfigurationRow,
  DeadLetterRow,
  PortRow,
  ReportDetails,
  RuleCountRow,
  SourceRow,
  TransitionRow,
} from './report-rows';

/** A flow's connection, as coverage reads it. */
export interface FlowConnection {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  destPort: number | null;
}

/** The read side of the report's tables: what previewReport and its readiness show. */
@Injectable()
export class ReportRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly disagreements: DisagreementsRepository,
  ) {}

  /** An experiment's configurations that evaluated something, newest first, with the TRAFFIC drops seen since each began. */
  async configurations(name: string): Promise<ConfigurationRow[]> {
    const configurations: ConfigurationRow[] = await this.dataSource.query(
      `SELECT c.id, v.experiment_etag, c.live_policy_etag, c.evaluated, c.changed, c.allow_to_deny, c.deny_to_allow,
              c.unchanged_allow, c.unchanged_deny, c.flows, c.changed_outside_flows, c.redelivered, c.first_event_time, c.last_event_time,
              d.dropped, d.undetermined
       FROM preview_configurations c JOIN preview_versions v ON v.id = c.version_id
       CROSS JOIN LATERAL (
         SELECT COALESCE(sum(dropped), 0) AS dropped, COALESCE(sum(undetermined), 0) AS undetermined
         FROM preview_traffic_drops WHERE observed_at >= c.created_at
       ) d
       WHERE c.experiment = $1 AND c.evaluated > 0
       ORDER BY c.id DESC`,
      [name],
    );
    return configurations;
  }

  /** The details of these configurations, read at once. */
  async details(ids: number[]): Promise<ReportDetails> {
    const [
      rules,
      sources,
      ports,
      transitions,
      buckets,
      deadLetters,
      { disagreements, disagreementFlows },
    ] = await Promise.all([
      // The margins of the transitions, plus the rule counts stored before 1.2.0 (no longer written).
      this.dataSource.query(
        `SELECT configuration_id, side, priority, action, sum(count) AS count FROM (
           SELECT configuration_id, 0 AS side, live_priority AS priority, live_action AS action, count FROM preview_transitions WHERE configuration_id = ANY($1::int[])
           UNION ALL
           SELECT configuration_id, 1, experiment_priority, experiment_action, count FROM preview_transitions WHERE configuration_id = ANY($1::int[])
           UNION ALL
           SELECT configuration_id, side, priority, action, count FROM preview_rule_counts WHERE configuration_id = ANY($1::int[])
         ) r GROUP BY configuration_id, side, priority, action`,
        [ids],
      ) as Promise<RuleCountRow[]>,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, s.src_ip, s.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT host(src_ip) AS src_ip, sum(count) AS count FROM preview_flows WHERE configuration_id = c.id
           GROUP BY preview_flows.src_ip ORDER BY 2 DESC, preview_flows.src_ip LIMIT $2
         ) s`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<SourceRow[]>,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, p.protocol, p.dest_port, p.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT protocol, dest_port, sum(count) AS count FROM preview_flows WHERE configuration_id = c.id AND dest_port >= 0
           GROUP BY protocol, dest_port ORDER BY 3 DESC, protocol, dest_port LIMIT $2
         ) p`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<PortRow[]>,
      this.dataSource.query(
        `SELECT configuration_id, live_priority, live_action, experiment_priority, experiment_action, count
         FROM preview_transitions WHERE configuration_id = ANY($1::int[])`,
        [ids],
      ) as Promise<TransitionRow[]>,
      this.dataSource.query(
        `SELECT configuration_id, width_seconds, start_time, evaluated, changed, allow_to_deny, deny_to_allow
         FROM preview_time_buckets WHERE configuration_id = ANY($1::int[]) ORDER BY configuration_id, start_time, width_seconds DESC`,
        [ids],
      ) as Promise<BucketRow[]>,
      this.dataSource.query(
        `SELECT configuration_id, reason, messages FROM preview_dead_letters WHERE configuration_id = ANY($1::int[])`,
        [ids],
      ) as Promise<DeadLetterRow[]>,
      this.disagreements.read(ids),
    ]);
    return {
      rules,
      sources,
      ports,
      transitions,
      buckets,
      deadLetters,
      disagreements,
      disagreementFlows,
    };
  }

  /** The connections of a configuration's changed flows (its coverage). */
  async flowConnections(configurationId: number): Promise<FlowConnection[]> {
    const flows = (await this.dataSource.query(
      `SELECT direction, host(src_ip) AS "srcIp", host(dest_ip) AS "destIp", protocol, NULLIF(dest_port, -1) AS "destPort"
       FROM preview_flows WHERE configuration_id = $1`,
      [configurationId],
    )) as FlowConnection[];
    return flows;
  }

  /**
   * The deny → allow events from each source range in the judged configuration's flows (the
   * `noDenyToAllowFrom` readiness gates), 0 for a range none came from.
   */
  async denyToAllowFrom(
    experiment: string,
    judged: { livePolicyEtag: string; experimentEtag: string },
    ranges: string[],
  ): Promise<Map<string, number>> {
    const denyToAllowFrom = new Map<string, number>();
    const rows: { range: string; count: string }[] = await this.dataSource.query(
      `SELECT r.range, COALESCE(sum(f.count), 0) AS count
         FROM unnest($3::text[]) AS r(range)
         LEFT JOIN (preview_flows f
           JOIN preview_configurations c ON c.id = f.configuration_id AND c.experiment = $1 AND c.live_policy_etag = $2
           JOIN preview_versions v ON v.id = c.version_id AND v.experiment_etag = $4)
           ON f.live_action = 'deny' AND f.src_ip <<= r.range::inet
         GROUP BY r.range`,
      [experiment, judged.livePolicyEtag, ranges, judged.experimentEtag],
    );
    for (const row of rows) denyToAllowFrom.set(row.range, Number(row.count));
    return denyToAllowFrom;
  }
}
