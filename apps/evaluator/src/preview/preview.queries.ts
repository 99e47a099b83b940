import { Injectable } from '@nestjs/common';
import {
  GetPreviewReportRequest,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
  PREVIEW_REPORT_TOP,
  PreviewConfigurationReport,
  PreviewLogRecord,
  PreviewReport,
  StatusError,
} from '@rollout/contracts';
import { LogCursor, decodePageToken, encodePageToken, parseExperimentName, ruleCounts } from '@rollout/preview-domain';
import { DataSource } from 'typeorm';

const MAX_BIGINT = '9223372036854775807';

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
  first_event_time: Date;
  last_event_time: Date;
}

/**
 * The read side: previewLogs pages and the previewReport, from the evaluator's Postgres schema.
 *
 * Logs are read from Postgres rather than from the PREVIEW_LOGS stream: the store holds each
 * record exactly once (its primary key is the record's identity, whatever the stream's
 * duplicate window), and indexes by configuration and by "changed" make a page of
 * `changedOnly=true`, newest configuration first, an index range scan instead of a scan of a
 * subject that JetStream (2.9) can only read forwards and cannot filter by payload.
 *
 * Whether the experiment exists is the experiment-service's to say (the gateway asks it): an
 * experiment the evaluator has no records of simply has no logs and an empty report here, so a
 * freshly created experiment is never reported missing while its events are on their way.
 */
@Injectable()
export class PreviewQueries {
  constructor(private readonly dataSource: DataSource) {}

  async listLogs(request: ListPreviewLogsRequest): Promise<ListPreviewLogsResponse> {
    const name = this.experimentName(request?.name);
    const changedOnly = request.changedOnly === true;
    const pageSize = pageSizeOf(request.pageSize);
    const query = { name, changedOnly };
    let cursor: LogCursor | undefined;
    if (request.pageToken) {
      cursor = decodePageToken(request.pageToken, query);
      if (!cursor) throw StatusError.invalidArgument('The page token is not one this query issued.', [{ field: 'pageToken', description: 'use the nextPageToken of the previous page of the same query' }]);
    }
    const configurations: { id: number }[] = await this.dataSource.query(
      `SELECT id FROM preview_configurations WHERE experiment = $1 ${cursor ? 'AND id <= $2' : ''} ORDER BY id DESC`,
      cursor ? [name, cursor.configuration] : [name],
    );
    // One row more than the page, to know whether another page follows.
    const found: { configuration: number; seq: string; record: string }[] = [];
    for (const { id } of configurations) {
      const below = cursor && id === cursor.configuration ? String(cursor.seq) : MAX_BIGINT;
      const rows: { seq: string; record: string }[] = await this.dataSource.query(
        `SELECT seq, record FROM preview_logs
         WHERE configuration_id = $1 AND seq < $2 ${changedOnly ? 'AND changed' : ''}
         ORDER BY seq DESC LIMIT $3`,
        [id, below, pageSize + 1 - found.length],
      );
      for (const row of rows) found.push({ configuration: id, ...row });
      if (found.length > pageSize) break;
    }
    const page = found.slice(0, pageSize);
    const response: ListPreviewLogsResponse = { previewLogs: page.map((row) => JSON.parse(row.record) as PreviewLogRecord) };
    if (found.length > pageSize) {
      const last = page[page.length - 1];
      response.nextPageToken = encodePageToken(query, { configuration: last.configuration, seq: Number(last.seq) });
    }
    return response;
  }

  async report(request: GetPreviewReportRequest): Promise<PreviewReport> {
    const name = this.experimentName(request?.name);
    const configurations: ConfigurationRow[] = await this.dataSource.query(
      `SELECT c.id, v.experiment_etag, c.live_policy_etag, c.evaluated, c.changed, c.allow_to_deny, c.deny_to_allow,
              c.unchanged_allow, c.unchanged_deny, c.first_event_time, c.last_event_time
       FROM preview_configurations c JOIN preview_versions v ON v.id = c.version_id
       WHERE c.experiment = $1 AND c.evaluated > 0
       ORDER BY c.id DESC`,
      [name],
    );
    if (configurations.length === 0) return { name, configurations: [] };
    const ids = configurations.map((c) => c.id);
    const [rules, sources, ports] = await Promise.all([
      this.dataSource.query(
        `SELECT configuration_id, side, priority, action, count FROM preview_rule_counts WHERE configuration_id = ANY($1::int[])`,
        [ids],
      ) as Promise<{ configuration_id: number; side: number; priority: number; action: string; count: string }[]>,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, s.src_ip, s.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT src_ip, count FROM preview_changed_sources WHERE configuration_id = c.id ORDER BY count DESC, src_ip LIMIT $2
         ) s`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<{ configuration_id: number; src_ip: string; count: string }[]>,
      this.dataSource.query(
        `SELECT c.id AS configuration_id, p.protocol, p.dest_port, p.count FROM unnest($1::int[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT protocol, dest_port, count FROM preview_changed_ports WHERE configuration_id = c.id
           ORDER BY count DESC, protocol, dest_port LIMIT $2
         ) p`,
        [ids, PREVIEW_REPORT_TOP],
      ) as Promise<{ configuration_id: number; protocol: string; dest_port: number; count: string }[]>,
    ]);
    return {
      name,
      configurations: configurations.map((c): PreviewConfigurationReport => {
        const mine = <T extends { configuration_id: number }>(rows: T[]) => rows.filter((r) => r.configuration_id === c.id);
        const side = (s: number) =>
          ruleCounts(mine(rules).filter((r) => r.side === s).map((r) => ({ priority: r.priority, action: r.action, count: Number(r.count) })));
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
          firstEventTime: c.first_event_time.toISOString(),
          lastEventTime: c.last_event_time.toISOString(),
        };
      }),
    };
  }

  private experimentName(name: unknown): string {
    const parsed = parseExperimentName(name);
    if (!parsed) {
      throw StatusError.invalidArgument(`"${String(name ?? '').slice(0, 200)}" is not an experiment name.`, [
        { field: 'name', description: 'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}/experiments/{experiment}' },
      ]);
    }
    return parsed.name;
  }
}

function pageSizeOf(value: unknown): number {
  if (value === undefined || value === null || value === 0) return PREVIEW_LOGS_DEFAULT_PAGE_SIZE;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw StatusError.invalidArgument('pageSize must be a positive integer.', [{ field: 'pageSize', description: `1-${PREVIEW_LOGS_MAX_PAGE_SIZE}` }]);
  }
  return Math.min(value, PREVIEW_LOGS_MAX_PAGE_SIZE);
}

