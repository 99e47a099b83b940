import { Injectable } from '@nestjs/common';
import { PREVIEW_FLOW_SAMPLES, PreviewFlow, PreviewFlowSample } from '@rollout/contracts';
import { FlowFilterTerm, IMPLIED_PRIORITY, verdictOf } from '@rollout/domain/preview';
import { poolOf } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { configurationFlows, flowSamples } from './flow-statements';
import { inFlowRead, rowsOf } from './rows';

export interface FlowCursor {
  c: number;
  t: string;
  f: number;
}

export interface FlowPageEntry {
  cursor: FlowCursor;
  flow: PreviewFlow;
}

interface FlowRow {
  configuration_id: number;
  id: string;
  /** As Postgres writes it: microseconds kept. */
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

@Injectable()
export class FlowsRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  /** `inclusive`: previewLogs resumes inside the cursor's flow. */
  async page(
    name: string,
    terms: FlowFilterTerm[],
    cursor: FlowCursor | undefined,
    limit: number,
    inclusive = false,
  ): Promise<FlowPageEntry[]> {
    const params: unknown[] = [name];
    const where: string[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    for (const term of terms) where.push(condition(term, param));
    if (cursor) {
      const [c, t, f] = [param(cursor.c), param(cursor.t), param(cursor.f)];
      where.push(
        `(f.configuration_id < ${c} OR (f.configuration_id = ${c} AND (f.last_event_time, f.id) ${inclusive ? '<=' : '<'} (${t}::timestamptz, ${f}::bigint)))`,
      );
    }
    const configurations = `ARRAY(SELECT id FROM preview_configurations WHERE experiment = $1)`;
    const sql = `SELECT page.*, ${flowSamples('page.row_ids')} AS samples FROM (
         SELECT f.configuration_id, f.id, f.row_ids, f.last_event_time::text AS last_text, v.experiment_etag, c.live_policy_etag,
                f.direction, host(f.src_ip) AS src_ip, host(f.dest_ip) AS dest_ip, f.protocol, f.dest_port, f.live_rule,
                f.experiment_rule, f.live_action, f.count, f.first_event_time, f.last_event_time
         FROM (${configurationFlows(configurations, true)}) f
         JOIN preview_configurations c ON c.id = f.configuration_id
         JOIN preview_versions v ON v.id = c.version_id
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY f.configuration_id DESC, f.last_event_time DESC, f.id DESC
         LIMIT ${param(limit)}
       ) page
       ORDER BY page.configuration_id DESC, page.last_event_time DESC, page.id DESC`;
    const rows = await inFlowRead(this.pool, (client) => rowsOf<FlowRow>(client, sql, params));
    return rows.map((row) => ({
      cursor: { c: row.configuration_id, t: row.last_text, f: Number(row.id) },
      flow: flowOf(row),
    }));
  }
}

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
      return term.op === '!='
        ? `${column} <> ${param(term.value)}`
        : `${column} >= 0 AND ${column} ${term.op} ${param(term.value)}`;
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
      return term.op === '!='
        ? `f.dest_port <> ${param(term.value)}`
        : `f.dest_port >= 0 AND f.dest_port ${term.op} ${param(term.value)}`;
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
    liveResult: verdictOf(row.live_rule, row.live_action),
    experimentResult: verdictOf(
      row.experiment_rule,
      row.live_action === 'allow' ? 'deny' : 'allow',
    ),
    count: Number(row.count),
    firstEventTime: row.first_event_time.toISOString(),
    lastEventTime: row.last_event_time.toISOString(),
    samples: row.samples.slice(0, PREVIEW_FLOW_SAMPLES),
  };
}
