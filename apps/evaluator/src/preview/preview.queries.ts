import { Injectable } from '@nestjs/common';
import {
  GetPreviewReportRequest,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
  PREVIEW_LOG_PREFIX,
  PREVIEW_REPORT_TOP,
  PREVIEW_REPORT_TRANSITIONS,
  ExperimentAnalysis,
  PreviewConfigurationReport,
  PreviewCoverage,
  PreviewFlow,
  PreviewFlowSample,
  PreviewLogRecord,
  PreviewReport,
  PreviewVerdict,
  RuleCount,
  StatusError,
} from '@rollout/contracts';
import {
  Cursor,
  FlowFilterTerm,
  IMPLIED_PRIORITY,
  completenessOf,
  coverageOf,
  cursorId,
  decodePageToken,
  encodePageToken,
  parseExperimentName,
  parseFlowFilter,
  previewRecordId,
  ruleCounts,
  verdictOf,
} from '@rollout/preview-domain';
import { DataSource } from 'typeorm';
import { analyzeExperiment } from '@rollout/firewall';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficLag } from '../traffic/traffic-lag';

interface ConfigurationRow {
  id: number;
  experiment_etag: string;
  live_policy_etag: string;
  evaluated: string;
  changed: string;
  allow_to_deny: string;
  deny_to_allow: string;
  unchanged_allow: string;
  unchanged_deny: string;
  flows: number;
  changed_outside_flows: string;
  redelivered: string;
  first_event_time: Date;
  last_event_time: Date;
  /** TRAFFIC drops observed since the configuration was created (see PreviewRetention.observeDrops). */
  dropped: string;
  undetermined: string;
}

interface FlowRow {
  configuration_id: number;
  id: string;
  /** last_event_time as Postgres writes it (microseconds kept), for the page cursor. */
  last_text: string;
  experiment_etag: string;
  live_policy_etag: string;
  direction: 'INGRESS' | 'EGRESS';
  src_ip: string;
  dest_ip: string;
  protocol: string;
  dest_port: number;
  live_rule: number;
  experiment_rule: number;
  live_action: 'allow' | 'deny';
  count: string;
  first_event_time: Date;
  last_event_time: Date;
  samples: PreviewFlowSample[];
}

interface TransitionRow {
  configuration_id: number;
  live_priority: number;
  live_action: string;
  experiment_priority: number;
  experiment_action: string;
  count: string;
}

interface BucketRow {
  configuration_id: number;
  width_seconds: number;
  start_time: Date;
  evaluated: string;
  changed: string;
  allow_to_deny: string;
  deny_to_allow: string;
}

interface DisagreementRow {
  configuration_id: number;
  other_experiment: string;
  other_etag: string;
  events: string;
  outside: string;
}

interface DisagreementFlowRow {
  configuration_id: number;
  other_experiment: string;
  other_etag: string;
  direction: 'INGRESS' | 'EGRESS';
  src_ip: string;
  dest_ip: string;
  protocol: string;
  dest_port: number;
  action: 'allow' | 'deny';
  count: string;
}

/** The most frequent PREVIEW_REPORT_TRANSITIONS cells, then by rules; how many are left out. */
function ruleTransitions(rows: TransitionRow[]): Pick<PreviewConfigurationReport, 'ruleTransitions' | 'ruleTransitionsOmitted'> {
  const cells = rows
    .map((r) => ({ live: verdictOf(r.live_priority, r.live_action), experiment: verdictOf(r.experiment_priority, r.experiment_action), count: Number(r.count) }))
    .sort(
      (a, b) =>
        b.count - a.count ||
        (a.live.rulePriority ?? -1) - (b.live.rulePriority ?? -1) ||
        (a.experiment.rulePriority ?? -1) - (b.experiment.rulePriority ?? -1) ||
        a.live.action.localeCompare(b.live.action) ||
        a.experiment.action.localeCompare(b.experiment.action),
    );
  return { ruleTransitions: cells.slice(0, PREVIEW_REPORT_TRANSITIONS), ruleTransitionsOmitted: Math.max(0, cells.length - PREVIEW_REPORT_TRANSITIONS) };
}

/**
 * The read side: previewReport, previewFlows and the deprecated previewLogs, from the
 * evaluator's Postgres schema.
 *
 * Whether the experiment exists is the experiment-service's to say (the gateway asks it): an
 * experiment the evaluator has nothing of simply has an empty report and no flows here, so a
 * freshly created experiment is never reported missing while its events are on their way, and
 * the report of a committed or deleted one stays readable until retention removes it.
 */
@Injectable()
export class PreviewQueries {
  /** Analyses of held (experiment etag, live etag) pairs: computed once, they never change. */
  private readonly analyses = new Map<string, ExperimentAnalysis>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly lag: TrafficLag,
    private readonly snapshot: PreviewStateService,
  ) {}

  /**
   * The coverage of the configuration whose experiment and live versions the evaluator holds
   * now, if it is one of these; its analysis is computed on first use and kept (at most 100).
   */
  private async coverage(name: string, configurations: readonly ConfigurationRow[], experimentRuleCounts: (id: number) => RuleCount[]): Promise<{ id: number; coverage: PreviewCoverage } | undefined> {
    const held = this.snapshot.state.versionsOf(name);
    const configuration = held && configurations.find((c) => c.experiment_etag === held.experimentEtag && c.live_policy_etag === held.liveEtag);
    if (!held || !configuration) return undefined;
    const key = `${name}\n${held.experimentEtag}\n${held.liveEtag}`;
    let analysis = this.analyses.get(key);
    if (!analysis) {
      analysis = analyzeExperiment({ rules: held.liveRules }, { rules: held.experimentRules }, held.liveEtag);
      if (this.analyses.size >= 100) this.analyses.delete(this.analyses.keys().next().value as string);
      this.analyses.set(key, analysis);
    }
    const flows = (await this.dataSource.query(
      `SELECT direction, host(src_ip) AS "srcIp", host(dest_ip) AS "destIp", protocol, NULLIF(dest_port, -1) AS "destPort"
       FROM preview_flows WHERE configuration_id = $1`,
      [configuration.id],
    )) as { direction: 'INGRESS' | 'EGRESS'; srcIp: string; destIp: string; protocol: string; destPort: number | null }[];
    return {
      id: configuration.id,
      coverage: coverageOf({
        analysis,
        experimentRules: held.experimentRules,
        flows: flows.map((f) => ({ direction: f.direction, srcIp: f.srcIp, destIp: f.destIp, protocol: f.protocol, ...(f.destPort === null ? {} : { destPort: f.destPort }) })),
        changedOutsideFlows: Number(configuration.changed_outside_flows),
        experimentRuleCounts: experimentRuleCounts(configuration.id),
      }),
    };
  }

  async report(request: GetPreviewReportRequest): Promise<PreviewReport> {
    const name = experimentName(request?.name, 'name');
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
    if (configurations.length === 0) return { name, configurations: [] };
    const ids = configurations.map((c) => c.id);
    const [rules, sources, ports, transitions, buckets, deadLetters, disagreements, disagreementFlows, lag] = await Promise.all([
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
      ) as Promise<
        { configuration_id: number; side: number; priority: number; action: string; count: string }[]
      >,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, s.src_ip, s.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT host(src_ip) AS src_ip, sum(count) AS count FROM preview_flows WHERE configuration_id = c.id
           GROUP BY preview_flows.src_ip ORDER BY 2 DESC, preview_flows.src_ip LIMIT $2
         ) s`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<{ configuration_id: number; src_ip: string; count: string }[]>,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, p.protocol, p.dest_port, p.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT protocol, dest_port, sum(count) AS count FROM preview_flows WHERE configuration_id = c.id AND dest_port >= 0
           GROUP BY protocol, dest_port ORDER BY 3 DESC, protocol, dest_port LIMIT $2
         ) p`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<{ configuration_id: number; protocol: string; dest_port: number; count: string }[]>,
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
      this.dataSource.query(`SELECT configuration_id, reason, messages FROM preview_dead_letters WHERE configuration_id = ANY($1::int[])`, [ids]) as Promise<
        { configuration_id: number; reason: string; messages: string }[]
      >,
      this.dataSource.query(
        `SELECT configuration_id, other_experiment, other_etag, events, outside FROM preview_disagreements
         WHERE configuration_id = ANY($1::int[]) ORDER BY events DESC, other_experiment, other_etag`,
        [ids],
      ) as Promise<DisagreementRow[]>,
      this.dataSource.query(
        `SELECT d.configuration_id, d.other_experiment, d.other_etag, f.direction, host(f.src_ip) AS src_ip, host(f.dest_ip) AS dest_ip,
                f.protocol, f.dest_port, f.action, f.count
         FROM preview_disagreements d CROSS JOIN LATERAL (
           SELECT * FROM preview_disagreement_flows f
           WHERE f.configuration_id = d.configuration_id AND f.other_experiment = d.other_experiment AND f.other_etag = d.other_etag
           ORDER BY f.count DESC, f.direction, f.src_ip, f.dest_ip, f.protocol, f.dest_port, f.action LIMIT $2
         ) f
         WHERE d.configuration_id = ANY($1::int[])`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<DisagreementFlowRow[]>,
      this.lag.read(),
    ]);
    const sideOf = (id: number, side: number) =>
      ruleCounts(rules.filter((r) => r.configuration_id === id && r.side === side).map((r) => ({ priority: r.priority, action: r.action, count: Number(r.count) })));
    const covered = await this.coverage(name, configurations, (id) => sideOf(id, 1));
    return {
      name,
      configurations: configurations.map((c): PreviewConfigurationReport => {
        const mine = <T extends { configuration_id: number }>(rows: T[]) => rows.filter((r) => r.configuration_id === c.id);
        const side = (s: number) => sideOf(c.id, s);
        return {
          experimentEtag: c.experiment_etag,
          livePolicyEtag: c.live_policy_etag,
          evaluated: Number(c.evaluated),
          changed: Number(c.changed),
          allowToDeny: Number(c.allow_to_deny),
          denyToAllow: Number(c.deny_to_allow),
          unchangedAllow: Number(c.unchanged_allow),
          unchangedDeny: Number(c.unchanged_deny),
          liveRules: side(0),
          experimentRules: side(1),
          topChangedSources: mine(sources).map((s) => ({ srcIp: s.src_ip, count: Number(s.count) })),
          topChangedDestinationPorts: mine(ports).map((p) => ({ protocol: p.protocol, destPort: p.dest_port, count: Number(p.count) })),
          flows: c.flows,
          changedOutsideFlows: Number(c.changed_outside_flows),
          ...ruleTransitions(mine(transitions)),
          timeBuckets: mine(buckets).map((b) => ({
            startTime: b.start_time.toISOString(),
            width: b.width_seconds === 60 ? 'MINUTE' : 'HOUR',
            evaluated: Number(b.evaluated),
            changed: Number(b.changed),
            allowToDeny: Number(b.allow_to_deny),
            denyToAllow: Number(b.deny_to_allow),
          })),
          disagreements: mine(disagreements).map((d) => ({
            experiment: d.other_experiment,
            experimentEtag: d.other_etag,
            events: Number(d.events),
            topFlows: mine(disagreementFlows)
              .filter((f) => f.other_experiment === d.other_experiment && f.other_etag === d.other_etag)
              .map((f) => ({
                direction: f.direction,
                srcIp: f.src_ip,
                destIp: f.dest_ip,
                protocol: f.protocol,
                ...(f.dest_port >= 0 ? { destPort: f.dest_port } : {}),
                action: f.action,
                otherAction: f.action === 'allow' ? 'deny' : 'allow',
                count: Number(f.count),
              })),
            eventsOutsideFlows: Number(d.outside),
          })),
          ...(covered?.id === c.id ? { coverage: covered.coverage } : {}),
          completeness: completenessOf({
            deadLettered: mine(deadLetters).map((d) => ({ reason: d.reason, messages: Number(d.messages) })),
            redeliveredEvents: Number(c.redelivered),
            trafficDroppedMessages: Number(c.dropped),
            trafficDropUndetermined: Number(c.undetermined),
            lag,
          }),
          firstEventTime: c.first_event_time.toISOString(),
          lastEventTime: c.last_event_time.toISOString(),
        };
      }),
    };
  }

  /** Changed flows, newest configuration first, then the flow seen last first. */
  async listFlows(request: ListPreviewFlowsRequest): Promise<ListPreviewFlowsResponse> {
    const name = experimentName(request?.parent, 'parent');
    const filter = parseFlowFilter(request.filter);
    if ('error' in filter) throw StatusError.invalidArgument(`The filter is not valid: ${filter.error}.`, [{ field: 'filter', description: filter.error }]);
    const pageSize = pageSizeOf(request.pageSize);
    const query = `flows\n${name}\n${request.filter ?? ''}`;
    const cursor = request.pageToken ? flowCursor(decodePageToken(request.pageToken, query)) : undefined;
    const rows = await this.flows(name, filter.terms, cursor, pageSize + 1);
    const page = rows.slice(0, pageSize);
    const response: ListPreviewFlowsResponse = { previewFlows: page.map(flowOf) };
    if (rows.length > pageSize) {
      const last = page[page.length - 1];
      response.nextPageToken = encodePageToken(query, { c: last.configuration_id, t: last.last_text, f: Number(last.id) });
    }
    return response;
  }

  /**
   * Deprecated: the sample records of the changed flows, rebuilt as they were logged (PREVIEW_LOGS
   * has every record). Flows in previewFlows' order, each flow's samples oldest first.
   */
  async listLogs(request: ListPreviewLogsRequest): Promise<ListPreviewLogsResponse> {
    const name = experimentName(request?.name, 'name');
    const pageSize = pageSizeOf(request.pageSize);
    const query = `logs\n${name}`;
    let cursor: (FlowCursor & { s: number }) | undefined;
    if (request.pageToken) {
      const decoded = decodePageToken(request.pageToken, query);
      const flow = flowCursor(decoded);
      const s = decoded?.s;
      if (!flow || !Number.isSafeInteger(s) || (s as number) < 0) throw badToken();
      cursor = { ...flow, s: s as number };
    }
    const records: PreviewLogRecord[] = [];
    let next: Cursor | undefined;
    // Flows hold at most PREVIEW_FLOW_SAMPLES records each: a page of flows as big as the page of records always suffices.
    const rows = await this.flows(name, [], cursor, pageSize + 1, true);
    const policy = parseExperimentName(name)?.policyName as string;
    for (const [index, row] of rows.entries()) {
      const flow = flowOf(row);
      // The page resumes inside the cursor's flow, unless that flow has been seen again (moved ahead).
      const from = index === 0 && cursor && Number(row.id) === cursor.f ? cursor.s : 0;
      for (let s = from; s < flow.samples.length; s++) {
        if (records.length === pageSize) {
          next = { c: row.configuration_id, t: row.last_text, f: Number(row.id), s };
          break;
        }
        records.push(recordOf(name, policy, flow, flow.samples[s]));
      }
      if (next) break;
    }
    return { previewLogs: records, ...(next ? { nextPageToken: encodePageToken(query, next) } : {}) };
  }

  /**
   * A page of flows in list order from a cursor. `inclusive`: the cursor's flow itself comes
   * first (previewLogs resumes inside a flow's samples).
   */
  private flows(name: string, terms: FlowFilterTerm[], cursor: FlowCursor | undefined, limit: number, inclusive = false): Promise<FlowRow[]> {
    const params: unknown[] = [name];
    const where: string[] = ['c.experiment = $1'];
    const param = (value: unknown) => `$${params.push(value)}`;
    for (const term of terms) where.push(condition(term, param));
    if (cursor) {
      const [c, t, f] = [param(cursor.c), param(cursor.t), param(cursor.f)];
      where.push(`(f.configuration_id < ${c} OR (f.configuration_id = ${c} AND (f.last_event_time, f.id) ${inclusive ? '<=' : '<'} (${t}::timestamptz, ${f}::bigint)))`);
    }
    return this.dataSource.query(
      `SELECT f.configuration_id, f.id, f.last_event_time::text AS last_text, v.experiment_etag, c.live_policy_etag, f.direction,
              host(f.src_ip) AS src_ip, host(f.dest_ip) AS dest_ip, f.protocol, f.dest_port, f.live_rule, f.experiment_rule, f.live_action,
              f.count, f.first_event_time, f.last_event_time, f.samples
       FROM preview_flows f
       JOIN preview_configurations c ON c.id = f.configuration_id
       JOIN preview_versions v ON v.id = c.version_id
       WHERE ${where.join(' AND ')}
       ORDER BY f.configuration_id DESC, f.last_event_time DESC, f.id DESC
       LIMIT ${param(limit)}`,
      params,
    );
  }
}

/** A timestamptz as Postgres writes it (ISO DateStyle): what a cursor may carry back. */
const POSTGRES_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

interface FlowCursor {
  c: number;
  t: string;
  f: number;
}

function flowCursor(decoded: Record<string, unknown> | undefined): FlowCursor {
  const c = cursorId(decoded?.c);
  const f = cursorId(decoded?.f);
  const t = decoded?.t;
  if (c === undefined || f === undefined || typeof t !== 'string' || !POSTGRES_TIMESTAMP.test(t)) throw badToken();
  return { c, t, f };
}

const badToken = () =>
  StatusError.invalidArgument('The page token is not one this query issued.', [{ field: 'pageToken', description: 'use the nextPageToken of the previous page of the same query' }]);

/** One filter term as SQL over preview_flows f and preview_configurations c / preview_versions v, values bound. */
function condition(term: FlowFilterTerm, param: (value: unknown) => string): string {
  const not = (sql: string) => (term.op === '!=' ? `NOT (${sql})` : sql);
  switch (term.field) {
    case 'transition':
      return not(`f.live_action = ${param(term.value === 'ALLOW_TO_DENY' ? 'allow' : 'deny')}`);
    case 'liveRule':
    case 'experimentRule': {
      const column = term.field === 'liveRule' ? 'f.live_rule' : 'f.experiment_rule';
      // The implied rule is stored as -1: comparisons of priorities leave it out.
      if (term.value === IMPLIED_PRIORITY) return not(`${column} = ${IMPLIED_PRIORITY}`);
      return term.op === '!=' ? `${column} <> ${param(term.value)}` : `${column} >= 0 AND ${column} ${term.op} ${param(term.value)}`;
    }
    case 'srcIp':
      return not(`f.src_ip <<= ${param(term.value)}::inet`);
    case 'destIp':
      return not(`f.dest_ip <<= ${param(term.value)}::inet`);
    case 'ip': {
      const range = param(term.value);
      return not(`(f.src_ip <<= ${range}::inet OR f.dest_ip <<= ${range}::inet)`);
    }
    case 'destPort':
      return term.op === '!=' ? `f.dest_port <> ${param(term.value)}` : `f.dest_port >= 0 AND f.dest_port ${term.op} ${param(term.value)}`;
    case 'protocol':
      return not(`f.protocol = ${param(term.value)}`);
    case 'direction':
      return not(`f.direction = ${param(term.value)}`);
    case 'experimentEtag':
      return not(`v.experiment_etag = ${param(term.value)}`);
    case 'livePolicyEtag':
      return not(`c.live_policy_etag = ${param(term.value)}`);
  }
}

const verdict = (priority: number, action: 'allow' | 'deny'): PreviewVerdict =>
  priority === IMPLIED_PRIORITY ? { action, rulePriority: null, implied: true } : { action, rulePriority: priority, implied: false };

const other = (action: 'allow' | 'deny') => (action === 'allow' ? 'deny' : 'allow');

function flowOf(row: FlowRow): PreviewFlow {
  return {
    experimentEtag: row.experiment_etag,
    livePolicyEtag: row.live_policy_etag,
    direction: row.direction,
    srcIp: row.src_ip,
    destIp: row.dest_ip,
    protocol: row.protocol,
    ...(row.dest_port >= 0 ? { destPort: row.dest_port } : {}),
    transition: row.live_action === 'allow' ? 'ALLOW_TO_DENY' : 'DENY_TO_ALLOW',
    liveResult: verdict(row.live_rule, row.live_action),
    experimentResult: verdict(row.experiment_rule, other(row.live_action)),
    count: Number(row.count),
    firstEventTime: row.first_event_time.toISOString(),
    lastEventTime: row.last_event_time.toISOString(),
    samples: row.samples,
  };
}

function recordOf(experiment: string, firewallPolicy: string, flow: PreviewFlow, sample: PreviewFlowSample): PreviewLogRecord {
  return {
    logPrefix: PREVIEW_LOG_PREFIX,
    id: previewRecordId(sample.trafficEventId, experiment, flow.experimentEtag),
    experiment,
    firewallPolicy,
    experimentEtag: flow.experimentEtag,
    livePolicyEtag: flow.livePolicyEtag,
    trafficEventId: sample.trafficEventId,
    eventTime: sample.eventTime,
    connection: {
      direction: flow.direction,
      srcIp: flow.srcIp,
      destIp: flow.destIp,
      protocol: flow.protocol as PreviewLogRecord['connection']['protocol'],
      ...(sample.srcPort === undefined ? {} : { srcPort: sample.srcPort }),
      ...(flow.destPort === undefined ? {} : { destPort: flow.destPort }),
    },
    liveResult: flow.liveResult,
    experimentResult: flow.experimentResult,
    changed: true,
  };
}

function experimentName(name: unknown, field: string): string {
  const parsed = parseExperimentName(name);
  if (!parsed) {
    throw StatusError.invalidArgument(`"${String(name ?? '').slice(0, 200)}" is not an experiment name.`, [
      { field, description: 'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}/experiments/{experiment}' },
    ]);
  }
  return parsed.name;
}

function pageSizeOf(value: unknown): number {
  if (value === undefined || value === null || value === 0) return PREVIEW_LOGS_DEFAULT_PAGE_SIZE;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw StatusError.invalidArgument('pageSize must be a positive integer.', [{ field: 'pageSize', description: `1-${PREVIEW_LOGS_MAX_PAGE_SIZE}` }]);
  }
  return Math.min(value, PREVIEW_LOGS_MAX_PAGE_SIZE);
}
