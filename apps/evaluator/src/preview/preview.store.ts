import { Injectable } from '@nestjs/common';
import type { PreviewVerdict, TrafficEvent } from '@rollout/contracts';
import { ActiveExperiment, ConfigurationTotals, Outcome, RecordKeys, ruleTallies } from '@rollout/preview-domain';
import { DataSource } from 'typeorm';
import { EventBytes, RecordBytes, RecordEncoder, jsonArrayOf } from './log-messages';

/** One evaluation of an ACTIVE experiment, ready to store (and, as an Outcome, to count). */
export interface EvaluatedRecord extends Outcome, RecordBytes {
  /** The experiment and live policy versions that produced it. */
  target: ActiveExperiment;
  trafficEventId: string;
}

/** New records of one configuration, committed and waiting to be published to PREVIEW_LOGS. */
export interface OutboxBatch {
  id: string;
  subject: string;
  /** The PREVIEW_LOGS messages (see log-messages.ts). */
  messages: Buffer[];
}

/** The summary of one write. */
export interface WriteResult {
  /** Records stored now. */
  stored: number;
  /** Records that were already stored (a redelivery, or another replica got there first). */
  duplicates: number;
  outbox: OutboxBatch[];
}

/** The records of one configuration in a batch. */
interface Group {
  configurationId: number;
  versionId: number;
  subject: string;
  keys: RecordKeys;
  items: EvaluatedRecord[];
  messages: Buffer[];
}

/**
 * The preview store's write side. One call stores the records of a batch of traffic events in
 * ONE transaction: the log rows, whose primary key (experiment version, traffic event id) is
 * the record of events already processed, so only rows that are new in this transaction are
 * added to the report counters; the counters; and an outbox row per configuration for the
 * stream. Whatever the redeliveries, crashes or replicas, each (experiment version, event) is
 * counted once. (Two batches holding the same events, in different orders, can deadlock;
 * Postgres then aborts one, and it is retried.)
 *
 * Each record's JSON is encoded to UTF-8 once, in message-sized runs: the store receives the
 * runs as one JSON array, and the stream the same runs as its messages.
 */
@Injectable()
export class PreviewStore {
  private readonly versions = new Map<string, number>();
  private readonly configurations = new Map<string, number>();

  private readonly encoder = new RecordEncoder();

  constructor(private readonly dataSource: DataSource) {}

  /** Encodes an event's part of its records, once for all its experiments. */
  eventBytes(event: TrafficEvent, live: PreviewVerdict): EventBytes {
    return this.encoder.event(event, live);
  }

  /** `items`: at most one per (experiment version, traffic event). */
  async write(items: readonly EvaluatedRecord[]): Promise<WriteResult> {
    const groups = await this.groups(items);
    const count = items.length;
    // Array parameters as Postgres array literals, built here: node-pg's generic conversion
    // costs more per element than everything else the client does for a row.
    const versionIds: string[] = [];
    const eventIds: string[] = [];
    const configurationIds: string[] = [];
    const changed: string[] = [];
    for (const group of groups) {
      const version = String(group.versionId);
      const configuration = String(group.configurationId);
      for (const item of group.items) {
        versionIds.push(version);
        eventIds.push(arrayElement(item.trafficEventId));
        configurationIds.push(configuration);
        changed.push(item.changed ? 't' : 'f');
      }
    }
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // The records travel as one JSON array, already UTF-8 (a Buffer is sent as is). RETURNING
      // only numbers: reading back text costs the client more than the insert itself.
      const inserted: { configuration_id: number; seq: string }[] = await runner.query(
        `INSERT INTO preview_logs (version_id, event_id, configuration_id, changed, record)
         SELECT k.version_id, k.event_id, k.configuration_id, k.changed, r.record::text
         FROM unnest($1::int[], $2::text[], $3::int[], $4::bool[]) WITH ORDINALITY AS k(version_id, event_id, configuration_id, changed, i)
         JOIN json_array_elements($5::json) WITH ORDINALITY AS r(record, i) USING (i)
         ORDER BY k.i
         ON CONFLICT DO NOTHING
         RETURNING configuration_id, seq`,
        [`{${versionIds.join(',')}}`, `{${eventIds.join(',')}}`, `{${configurationIds.join(',')}}`, `{${changed.join(',')}}`, jsonArrayOf(groups.flatMap((g) => g.messages))],
      );
      // As many rows as given: all were new (each given row inserts at most once).
      const allNew = inserted.length === count;
      const fresh = allNew ? allOf(groups, inserted) : await freshOf(runner.query.bind(runner), groups, inserted);
      const totals = new Map<number, ConfigurationTotals>();
      for (const entry of fresh) {
        if (entry.items.length === 0) continue;
        const sum = new ConfigurationTotals();
        for (const item of entry.items) sum.add(item);
        totals.set(entry.group.configurationId, sum);
      }
      if (totals.size > 0) await this.addTotals(runner.query.bind(runner), totals);
      const batches: OutboxBatch[] = [];
      for (const entry of fresh) {
        if (entry.items.length === 0) continue;
        const [{ id }]: { id: string }[] = await runner.query(
          `INSERT INTO preview_log_outbox (subject, configuration_id, seqs) VALUES ($1, $2, $3::bigint[]) RETURNING id`,
          [entry.group.subject, entry.group.configurationId, entry.seqs],
        );
        // All new: the messages already written are the ones to publish. Otherwise write the new ones.
        const messages = allNew ? entry.group.messages : this.encoder.runs(entry.group.keys, entry.items);
        batches.push({ id, subject: entry.group.subject, messages });
      }
      await runner.commitTransaction();
      const stored = fresh.reduce((sum, entry) => sum + entry.items.length, 0);
      return { stored, duplicates: count - stored, outbox: batches };
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The batch by configuration (created on first sight), each group's records encoded in runs. */
  private async groups(items: readonly EvaluatedRecord[]): Promise<Group[]> {
    const byConfiguration = new Map<string, EvaluatedRecord[]>();
    for (const item of items) {
      const key = item.target.keys.configuration;
      let list = byConfiguration.get(key);
      if (!list) byConfiguration.set(key, (list = []));
      list.push(item);
    }
    const groups: Group[] = [];
    for (const list of byConfiguration.values()) {
      const target = list[0].target;
      const versionId = await this.versionId(target.name, target.etag);
      const configurationId = await this.configurationId(versionId, target.keys.configuration, target.name, target.liveEtag);
      groups.push({ configurationId, versionId, subject: target.logSubject, keys: target.keys, items: list, messages: this.encoder.runs(target.keys, list) });
    }
    return groups.sort((a, b) => a.configurationId - b.configurationId);
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
        for (const { priority, action, count } of ruleTallies(counts)) rules.push([id, side, priority, action, count]);
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

  private async configurationId(versionId: number, key: string, experiment: string, liveEtag: string): Promise<number> {
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

/** A text element of a Postgres array literal: quoted, with `"` and `\` escaped. */
const arrayElement = (text: string) =>
  text.includes('"') || text.includes('\\') ? `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"` : `"${text}"`;

interface Fresh {
  group: Group;
  /** The group's records stored by this transaction, and their sequences (store order). */
  items: EvaluatedRecord[];
  seqs: string[];
}

const bySeq = (a: string, b: string) => Number(a) - Number(b);

/** Every record was new: each group's sequences are those returned for its configuration. */
function allOf(groups: Group[], inserted: { configuration_id: number; seq: string }[]): Fresh[] {
  const seqs = new Map<number, string[]>(groups.map((g) => [g.configurationId, []]));
  for (const row of inserted) seqs.get(row.configuration_id)?.push(row.seq);
  return groups.map((group) => ({ group, items: group.items, seqs: (seqs.get(group.configurationId) as string[]).sort(bySeq) }));
}

/** Some records were stored before (a redelivery): find which rows this transaction inserted. */
async function freshOf(
  query: (sql: string, params: unknown[]) => Promise<{ version_id: number; event_id: string; seq: string }[]>,
  groups: Group[],
  inserted: { configuration_id: number; seq: string }[],
): Promise<Fresh[]> {
  const rows = await query(
    `SELECT l.version_id, l.event_id, l.seq FROM unnest($1::int[], $2::bigint[]) AS i(configuration_id, seq)
     JOIN preview_logs l ON l.configuration_id = i.configuration_id AND l.seq = i.seq`,
    [inserted.map((r) => r.configuration_id), inserted.map((r) => r.seq)],
  );
  const seqOf = new Map(rows.map((row) => [`${row.version_id}\n${row.event_id}`, row.seq]));
  return groups.map((group) => {
    const found: { item: EvaluatedRecord; seq: string }[] = [];
    for (const item of group.items) {
      const seq = seqOf.get(`${group.versionId}\n${item.trafficEventId}`);
      if (seq !== undefined) found.push({ item, seq });
    }
    found.sort((a, b) => bySeq(a.seq, b.seq));
    return { group, items: found.map((f) => f.item), seqs: found.map((f) => f.seq) };
  });
}

function transpose<T extends unknown[]>(rows: T[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i].push(row[i]);
  return columns;
}
