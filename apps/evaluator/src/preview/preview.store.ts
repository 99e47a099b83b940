import { Injectable } from '@nestjs/common';
import type { PreviewLogRecord } from '@rollout/contracts';
import { ConfigurationTotals, Outcome, parseRuleKey } from '@rollout/preview-domain';
import { DataSource } from 'typeorm';

/** One evaluation of an ACTIVE experiment, ready to store. */
export interface EvaluatedRecord {
  record: PreviewLogRecord;
  /** The record as JSON, serialised once for the store and the stream. */
  json: string;
  outcome: Outcome;
  /** Where the record is published (not namespaced). */
  logSubject: string;
}

/** New records of one configuration, committed and waiting to be published to PREVIEW_LOGS. */
export interface OutboxBatch {
  id: string;
  subject: string;
  records: string[];
}

/** The summary of one write. */
export interface WriteResult {
  /** Records stored now. */
  stored: number;
  /** Records that were already stored (a redelivery, or another replica got there first). */
  duplicates: number;
  outbox: OutboxBatch[];
}

interface Row {
  versionId: number;
  configurationId: number;
  item: EvaluatedRecord;
}

/**
 * The preview store's write side. One call stores the records of a batch of traffic events in
 * ONE transaction: the log rows, whose primary key (experiment version, traffic event id) is
 * the record of events already processed, so only rows that are new in this transaction are
 * added to the report counters; the counters; and an outbox row per configuration for the
 * stream. Whatever the redeliveries, crashes or replicas, each (experiment version, event) is
 * counted once. Rows are written in key order, so concurrent batches never deadlock on them.
 */
@Injectable()
export class PreviewStore {
  private readonly versions = new Map<string, number>();
  private readonly configurations = new Map<string, number>();

  constructor(private readonly dataSource: DataSource) {}

  async write(items: readonly EvaluatedRecord[]): Promise<WriteResult> {
    const rows = await this.rows(items);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const inserted: { version_id: number; event_id: string; seq: string }[] = await runner.query(
        `INSERT INTO preview_logs (version_id, event_id, configuration_id, changed, record)
         SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::bool[], $5::text[])
         ON CONFLICT DO NOTHING
         RETURNING version_id, event_id, seq`,
        [
          rows.map((r) => r.versionId),
          rows.map((r) => r.item.record.trafficEventId),
          rows.map((r) => r.configurationId),
          rows.map((r) => r.item.record.changed),
          rows.map((r) => r.item.json),
        ],
      );
      const fresh = this.freshRows(rows, inserted);
      const totals = new Map<number, ConfigurationTotals>();
      const outbox = new Map<number, { subject: string; seqs: string[]; records: string[] }>();
      for (const { row, seq } of fresh) {
        let sum = totals.get(row.configurationId);
        if (!sum) totals.set(row.configurationId, (sum = new ConfigurationTotals()));
        sum.add(row.item.outcome);
        let pending = outbox.get(row.configurationId);
        if (!pending) outbox.set(row.configurationId, (pending = { subject: row.item.logSubject, seqs: [], records: [] }));
        pending.seqs.push(seq);
        pending.records.push(row.item.json);
      }
      if (totals.size > 0) await this.addTotals(runner.query.bind(runner), totals);
      const batches: OutboxBatch[] = [];
      for (const [configurationId, pending] of [...outbox].sort((a, b) => a[0] - b[0])) {
        const [{ id }]: { id: string }[] = await runner.query(
          `INSERT INTO preview_log_outbox (subject, configuration_id, seqs) VALUES ($1, $2, $3::bigint[]) RETURNING id`,
          [pending.subject, configurationId, pending.seqs],
        );
        batches.push({ id, subject: pending.subject, records: pending.records });
      }
      await runner.commitTransaction();
      return { stored: fresh.length, duplicates: items.length - fresh.length, outbox: batches };
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The rows of a batch, one per (experiment version, event), in key order. */
  private async rows(items: readonly EvaluatedRecord[]): Promise<Row[]> {
    const rows: Row[] = [];
    const seen = new Set<string>();
    for (const item of items) {
      const { experiment, experimentEtag, livePolicyEtag, trafficEventId } = item.record;
      const versionId = await this.versionId(experiment, experimentEtag);
      const key = `${versionId}\n${trafficEventId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({ versionId, configurationId: await this.configurationId(versionId, experiment, livePolicyEtag), item });
    }
    return rows.sort((a, b) => a.versionId - b.versionId || compare(a.item.record.trafficEventId, b.item.record.trafficEventId));
  }

  /** The rows this transaction inserted, with their sequence, in store order. */
  private freshRows(rows: Row[], inserted: { version_id: number; event_id: string; seq: string }[]): { row: Row; seq: string }[] {
    const inOrder =
      inserted.length === rows.length &&
      rows.every((row, i) => inserted[i].version_id === row.versionId && inserted[i].event_id === row.item.record.trafficEventId);
    // The usual case: everything was new, and RETURNING gave the rows back in input order.
    if (inOrder) return rows.map((row, i) => ({ row, seq: inserted[i].seq })).sort(bySeq);
    const byKey = new Map(rows.map((row) => [`${row.versionId}\n${row.item.record.trafficEventId}`, row]));
    return inserted.map((r) => ({ row: byKey.get(`${r.version_id}\n${r.event_id}`) as Row, seq: r.seq })).sort(bySeq);
  }

  private async addTotals(query: (sql: string, params: unknown[]) => Promise<unknown>, totals: Map<number, ConfigurationTotals>) {
    const ids = [...totals.keys()].sort((a, b) => a - b);
    const column = <T>(pick: (t: ConfigurationTotals) => T) => ids.map((id) => pick(totals.get(id) as ConfigurationTotals));
    await query(
      `UPDATE preview_configurations c SET
         evaluated = c.evaluated + u.evaluated, changed = c.changed + u.changed,
         allow_to_deny = c.allow_to_deny + u.allow_to_deny, deny_to_allow = c.deny_to_allow + u.deny_to_allow,
         unchanged_allow = c.unchanged_allow + u.unchanged_allow, unchanged_deny = c.unchanged_deny + u.unchanged_deny,
         first_event_time = LEAST(c.first_event_time, u.first_event_time),
         last_event_time = GREATEST(c.last_event_time, u.last_event_time)
       FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::timestamptz[], $9::timestamptz[])
         AS u(id, evaluated, changed, allow_to_deny, deny_to_allow, unchanged_allow, unchanged_deny, first_event_time, last_event_time)
       WHERE c.id = u.id`,
      [
        ids,
        column((t) => t.evaluated),
        column((t) => t.changed),
        column((t) => t.allowToDeny),
        column((t) => t.denyToAllow),
        column((t) => t.unchangedAllow),
        column((t) => t.unchangedDeny),
        column((t) => new Date(t.firstEventMs).toISOString()),
        column((t) => new Date(t.lastEventMs).toISOString()),
      ],
    );
    const rules: [number, number, number, string, number][] = [];
    const sources: [number, string, number][] = [];
    const ports: [number, string, number, number][] = [];
    for (const id of ids) {
      const t = totals.get(id) as ConfigurationTotals;
      for (const [side, counts] of [t.liveRules, t.experimentRules].entries()) {
        for (const [key, count] of counts) {
          const { priority, action } = parseRuleKey(key);
          rules.push([id, side, priority, action, count]);
        }
      }
      for (const [srcIp, count] of t.changedSources) sources.push([id, srcIp, count]);
      for (const [key, count] of t.changedPorts) {
        const slash = key.lastIndexOf('/');
        ports.push([id, key.slice(0, slash), Number(key.slice(slash + 1)), count]);
      }
    }
    rules.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || compare(a[3], b[3]));
    await query(
      `INSERT INTO preview_rule_counts AS r (configuration_id, side, priority, action, count)
       SELECT * FROM unnest($1::int[], $2::smallint[], $3::int[], $4::text[], $5::bigint[])
       ON CONFLICT (configuration_id, side, priority, action) DO UPDATE SET count = r.count + excluded.count`,
      transpose(rules, 5),
    );
    if (sources.length) {
      sources.sort((a, b) => a[0] - b[0] || compare(a[1], b[1]));
      await query(
        `INSERT INTO preview_changed_sources AS s (configuration_id, src_ip, count)
         SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[])
         ON CONFLICT (configuration_id, src_ip) DO UPDATE SET count = s.count + excluded.count`,
        transpose(sources, 3),
      );
    }
    if (ports.length) {
      ports.sort((a, b) => a[0] - b[0] || compare(a[1], b[1]) || a[2] - b[2]);
      await query(
        `INSERT INTO preview_changed_ports AS p (configuration_id, protocol, dest_port, count)
         SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::bigint[])
         ON CONFLICT (configuration_id, protocol, dest_port) DO UPDATE SET count = p.count + excluded.count`,
        transpose(ports, 4),
      );
    }
  }

  private async versionId(experiment: string, etag: string): Promise<number> {
    const key = `${experiment}\n${etag}`;
    const known = this.versions.get(key);
    if (known !== undefined) return known;
    const id = await this.idOf(
      `WITH created AS (
         INSERT INTO preview_versions (experiment, experiment_etag) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id
       )
       SELECT id FROM created UNION ALL SELECT id FROM preview_versions WHERE experiment = $1 AND experiment_etag = $2`,
      [experiment, etag],
    );
    this.versions.set(key, id);
    return id;
  }

  private async configurationId(versionId: number, experiment: string, liveEtag: string): Promise<number> {
    const key = `${versionId}\n${liveEtag}`;
    const known = this.configurations.get(key);
    if (known !== undefined) return known;
    const id = await this.idOf(
      `WITH created AS (
         INSERT INTO preview_configurations (version_id, experiment, live_policy_etag) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id
       )
       SELECT id FROM created UNION ALL SELECT id FROM preview_configurations WHERE version_id = $1 AND live_policy_etag = $3`,
      [versionId, experiment, liveEtag],
    );
    this.configurations.set(key, id);
    return id;
  }

  /**
   * Get-or-create in one statement. When another replica inserts the same key concurrently, the
   * statement's snapshot may see neither row; the next try sees the committed one.
   */
  private async idOf(sql: string, params: unknown[]): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const [row]: { id: number }[] = await this.dataSource.query(sql, params);
      if (row) return row.id;
      if (attempt >= 5) throw new Error('cannot create or find a preview configuration');
    }
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const bySeq = (a: { seq: string }, b: { seq: string }) => Number(a.seq) - Number(b.seq);

function transpose<T extends unknown[]>(rows: T[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i].push(row[i]);
  return columns;
}
