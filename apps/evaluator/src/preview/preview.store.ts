import { Inject, Injectable } from '@nestjs/common';
import { PREVIEW_DISAGREEMENT_FLOWS, PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import { poolOf, prepared } from '@rollout/postgres';
import { parseAddress } from '@rollout/firewall';
import { ConfigurationBatch, ConfigurationTotals, DisagreementFlow, Evaluation, EvaluatedTraffic, FlowTally, IMPLIED_PRIORITY, LostTraffic, addressText, aggregateMessages, transitionTallies } from '@rollout/preview-domain';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Config, EVALUATOR_CONFIG } from '../config';

/** The evaluations of one traffic message (a traffic.v1 event, or a traffic.v2alpha batch). */
export interface EvaluatedMessage extends EvaluatedTraffic {
  /** Its TRAFFIC stream sequence: what "counted once" is recorded by. */
  seq: number;
  evaluations: Evaluation[];
}

/** A dead-lettered traffic message the ACTIVE configurations of its policy miss. */
export interface LostMessage extends LostTraffic {
  seq: number;
}

/** Postgres's exclusion_violation: a sequence of the batch was counted meanwhile. */
const COUNTED_MEANWHILE = '23P01';

/** Runs a fixed statement as a named prepared statement (parsed and planned once per connection). */
type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;

/**
 * The preview store's write side. One call adds what a batch of traffic messages did to the
 * report, in ONE transaction:
 *
 * - the TRAFFIC stream sequences the batch covers, as ranges, in `preview_counted`. Its
 *   exclusion constraint lets no sequence in twice, so a message is counted exactly once
 *   whatever the redeliveries, crashes and replicas. The traffic path leaves out what `counted`
 *   finds counted before it evaluates; a message counted by another delivery in between makes
 *   the insert wait for that transaction, then fail, and the whole batch is handed back: its
 *   next try finds the message counted. Ranges below the consumer's ack floor are merged
 *   (PreviewRetention), so the table stays a few rows;
 * - per configuration: the totals, the rule transitions (whose margins are the deciding-rule
 *   counts), the minute buckets, and the changed decisions by flow (count, first and last
 *   time, the first few samples).
 *
 * So a batch's Postgres work grows with the configurations and distinct flows it touches, never
 * with its events. Rows are locked in a fixed order (configurations by id, then flows by key),
 * so two batches queue rather than deadlock; should Postgres abort one anyway, it is retried.
 */
@Injectable()
export class PreviewStore {
  private readonly versions = new Map<string, number>();
  private readonly configurations = new Map<string, number>();
  /** Kept flow keys of disagreement pairs at their cap, by pair (see keptDisagreementFlows). */
  private readonly fullPairs = new Map<string, Set<string>>();

  private readonly pool: Pool;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {
    this.pool = poolOf(dataSource);
  }

  /**
   * The sequences among these that are counted already: a redelivery after a crash skips the
   * evaluation and its preview logs. `count` stays safe without it: the constraint decides.
   */
  async counted(seqs: readonly number[]): Promise<Set<number>> {
    const counted = new Set<number>();
    if (seqs.length === 0) return counted;
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    for (const seq of seqs) {
      if (seq < min) min = seq;
      if (seq > max) max = seq;
    }
    const { rows } = await this.pool.query<{ lo: string; hi: string }>(
      prepared(`SELECT lo, hi FROM preview_counted WHERE int8range(lo, hi, '[]') && int8range($1, $2, '[]')`, [min, max]),
    );
    for (const seq of seqs) if (rows.some((r) => seq >= Number(r.lo) && seq <= Number(r.hi))) counted.add(seq);
    return counted;
  }

  /**
   * Counts these messages and the dead-lettered ones, none of them counted before (see
   * `counted`). Throws, counting nothing, if another delivery counted one of them meanwhile.
   */
  async count(messages: readonly EvaluatedMessage[], lost: readonly LostMessage[] = []): Promise<void> {
    if (messages.length === 0 && lost.length === 0) return;
    const batches = aggregateMessages(messages, lost);
    const ids = await this.configurationIds(batches).catch((error: unknown) => {
      this.forgetAll();
      throw error;
    });
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      await client.query('BEGIN');
      const query: Query = async (sql, params) => (await client.query(prepared(sql, params))).rows;
      const runs = runsOf([...messages, ...lost].map((m) => m.seq).sort((a, b) => a - b));
      await query(`INSERT INTO preview_counted (lo, hi) SELECT * FROM unnest($1::bigint[], $2::bigint[])`, [runs.map((r) => r[0]), runs.map((r) => r[1])]);
      await this.add(query, batches, ids);
      await client.query('COMMIT');
    } catch (error) {
      failure = error as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      if ((error as { code?: string }).code === COUNTED_MEANWHILE) {
        throw new Error('a message of this batch was counted meanwhile by another delivery; the batch is tried again without it', { cause: error });
      }
      // Ids cached here may name rows retention removed: look them up again on the retry.
      this.forgetAll();
      throw error;
    } finally {
      // A connection that failed mid-transaction may be broken: the pool drops it.
      client.release(failure && !('code' in failure) ? failure : undefined);
    }
  }

  private async add(query: Query, batches: ConfigurationBatch[], ids: Map<ConfigurationBatch['target'], number>): Promise<void> {
    const entries = batches.map((batch) => ({ batch, id: ids.get(batch.target) as number })).sort((a, b) => a.id - b.id);
    // Configurations first, in id order: concurrent batches of one configuration queue here, not deadlock later.
    const locked = (await query(`SELECT id, flows FROM preview_configurations WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`, [entries.map((e) => e.id)])) as {
      id: number;
      flows: number;
    }[];
    if (locked.length !== entries.length) {
      // Retention removed a configuration this replica still had cached: count again, from scratch.
      throw new Error('a preview configuration was removed by retention meanwhile');
    }
    const room = new Map(locked.map((row) => [row.id, Math.max(0, this.config.EVALUATOR_MAX_FLOWS - row.flows)]));
    const { inserted, outside } = await this.addFlows(query, entries, room);
    await this.addDisagreements(query, entries);
    const column = <T>(pick: (t: ConfigurationTotals, id: number) => T) => entries.map(({ batch, id }) => pick(batch.totals, id));
    await query(
      `UPDATE preview_configurations c SET
           evaluated = c.evaluated + u.evaluated, changed = c.changed + u.changed,
           allow_to_deny = c.allow_to_deny + u.allow_to_deny, deny_to_allow = c.deny_to_allow + u.deny_to_allow,
           unchanged_allow = c.unchanged_allow + u.unchanged_allow, unchanged_deny = c.unchanged_deny + u.unchanged_deny,
           first_event_time = LEAST(c.first_event_time, to_timestamp(u.first_ms / 1000.0)),
           last_event_time = GREATEST(c.last_event_time, to_timestamp(u.last_ms / 1000.0)),
           flows = c.flows + u.flows, changed_outside_flows = c.changed_outside_flows + u.outside,
           redelivered = c.redelivered + u.redelivered, updated_at = now()
         FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::float8[], $9::float8[], $10::int[], $11::bigint[], $12::bigint[])
           AS u(id, evaluated, changed, allow_to_deny, deny_to_allow, unchanged_allow, unchanged_deny, first_ms, last_ms, flows, outside, redelivered)
         WHERE c.id = u.id`,
      [
        column((_, id) => id),
        column((t) => t.evaluated),
        column((t) => t.changed),
        column((t) => t.allowToDeny),
        column((t) => t.denyToAllow),
        column((t) => t.unchangedAllow),
        column((t) => t.unchangedDeny),
        // NULL (LEAST and GREATEST skip it) for a configuration that only lost messages in this batch.
        column((t) => (t.evaluated ? t.firstEventMs : null)),
        column((t) => (t.evaluated ? t.lastEventMs : null)),
        column((_, id) => inserted.get(id) ?? 0),
        column((_, id) => outside.get(id) ?? 0),
        entries.map(({ batch }) => batch.redelivered),
      ],
    );
    const transitions: [number, number, string, number, string, number][] = [];
    const minutes: [number, number, number, number, number, number][] = [];
    const deadLetters: [number, string, number][] = [];
    for (const { batch, id } of entries) {
      for (const [reason, count] of batch.deadLettered) deadLetters.push([id, reason, count]);
      for (const t of transitionTallies(batch.totals.transitions)) {
        transitions.push([id, t.livePriority, t.liveAction, t.experimentPriority, t.experimentAction, t.count]);
      }
      for (const [start, b] of batch.totals.minutes) minutes.push([id, start, b.evaluated, b.changed, b.allowToDeny, b.denyToAllow]);
    }
    transitions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || compare(a[2], b[2]) || a[3] - b[3] || compare(a[4], b[4]));
    minutes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    deadLetters.sort((a, b) => a[0] - b[0] || compare(a[1], b[1]));
    // One statement for all three (a data-modifying WITH runs whether or not it is read).
    await query(
      `WITH transitions AS (
         INSERT INTO preview_transitions AS t (configuration_id, live_priority, live_action, experiment_priority, experiment_action, count)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::text[], $6::bigint[])
         ON CONFLICT (configuration_id, live_priority, live_action, experiment_priority, experiment_action) DO UPDATE SET count = t.count + excluded.count
       ), dead_letters AS (
         INSERT INTO preview_dead_letters AS d (configuration_id, reason, messages)
         SELECT * FROM unnest($13::int[], $14::text[], $15::bigint[])
         ON CONFLICT (configuration_id, reason) DO UPDATE SET messages = d.messages + excluded.messages
       )
       INSERT INTO preview_time_buckets AS b (configuration_id, width_seconds, start_time, evaluated, changed, allow_to_deny, deny_to_allow)
       SELECT u.c, 60, to_timestamp(u.s / 1000.0), u.e, u.ch, u.ad, u.da
       FROM unnest($7::int[], $8::float8[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[]) AS u(c, s, e, ch, ad, da)
       ON CONFLICT (configuration_id, width_seconds, start_time) DO UPDATE SET
         evaluated = b.evaluated + excluded.evaluated, changed = b.changed + excluded.changed,
         allow_to_deny = b.allow_to_deny + excluded.allow_to_deny, deny_to_allow = b.deny_to_allow + excluded.deny_to_allow`,
      [...transpose(transitions, 6), ...transpose(minutes, 6), ...transpose(deadLetters, 3)],
    );
  }

  /**
   * Adds the batch's changed flows. A configuration with room for every flow of the batch takes
   * them in one upsert (the common case). One near EVALUATOR_MAX_FLOWS adds to the flows it has,
   * takes new ones while there is room (first by key), and counts the changed events of the
   * rest as outside the flows. `room` is read under the configuration's row lock, so the limit
   * is exact whatever the replicas.
   */
  private async addFlows(query: Query, entries: { batch: ConfigurationBatch; id: number }[], room: Map<number, number>) {
    const inserted = new Map<number, number>();
    const outside = new Map<number, number>();
    const roomy: FlowRow[] = [];
    for (const { batch, id } of entries) {
      const rows = [...batch.flows.values()].map((flow) => ({ id, flow })).sort(byFlowKey);
      if (rows.length <= (room.get(id) ?? 0)) {
        roomy.push(...rows);
        continue;
      }
      const known = new Set(((await query(UPDATE_KNOWN_FLOWS, flowColumns(rows))) as { i: string }[]).map((row) => Number(row.i) - 1));
      const unknown = rows.filter((_, i) => !known.has(i));
      const taken = unknown.slice(0, room.get(id) ?? 0);
      if (taken.length > 0) {
        const added = (await query(UPSERT_FLOWS, flowColumns(taken))) as { inserted: boolean }[];
        inserted.set(id, added.filter((row) => row.inserted).length);
      }
      outside.set(id, unknown.slice(taken.length).reduce((sum, row) => sum + row.flow.count, 0));
    }
    if (roomy.length > 0) {
      for (const row of (await query(UPSERT_FLOWS, flowColumns(roomy))) as { configuration_id: number; inserted: boolean }[]) {
        if (row.inserted) inserted.set(row.configuration_id, (inserted.get(row.configuration_id) ?? 0) + 1);
      }
    }
    return { inserted, outside };
  }

  /**
   * Adds what other ACTIVE experiments decide differently (only with two or more on a policy).
   * Flows are kept per pair up to PREVIEW_DISAGREEMENT_FLOWS, first by key, as addFlows does;
   * the configuration's row lock makes the limit exact.
   */
  private async addDisagreements(query: Query, entries: { batch: ConfigurationBatch; id: number }[]): Promise<void> {
    const pairs = entries
      .flatMap(({ batch, id }) => [...batch.disagreements.values()].map((tally) => ({ id, tally, key: pairKey(id, tally.other.name, tally.other.etag) })))
      .sort((a, b) => compare(a.key, b.key));
    if (pairs.length === 0) return;
    const kept = (await query(
      `INSERT INTO preview_disagreements AS d (configuration_id, other_experiment, other_etag, events)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bigint[])
       ON CONFLICT (configuration_id, other_experiment, other_etag) DO UPDATE SET events = d.events + excluded.events
       RETURNING configuration_id, other_experiment, other_etag, flows`,
      [pairs.map((p) => p.id), pairs.map((p) => p.tally.other.name), pairs.map((p) => p.tally.other.etag), pairs.map((p) => p.tally.events)],
    )) as { configuration_id: number; other_experiment: string; other_etag: string; flows: number }[];
    const keptFlows = new Map(kept.map((row) => [pairKey(row.configuration_id, row.other_experiment, row.other_etag), row.flows]));
    // A pair at its cap keeps the flows it has for good: only those are sent to be updated.
    const full = new Map<string, Set<string>>();
    for (const p of pairs) if ((keptFlows.get(p.key) ?? 0) >= PREVIEW_DISAGREEMENT_FLOWS) full.set(p.key, await this.keptDisagreementFlows(query, p.id, p.tally.other));
    const outside = new Map<string, number>();
    const rows = pairs.flatMap(({ id, tally, key }) =>
      [...tally.flows.values()]
        .filter((flow) => {
          const keptSet = full.get(key);
          if (!keptSet || keptSet.has(disagreementFlowKey(flow))) return true;
          outside.set(key, (outside.get(key) ?? 0) + flow.count);
          return false;
        })
        .map((flow) => ({ id, other: tally.other, key, flow })),
    );
    rows.sort((a, b) => compare(a.key, b.key) || compare(disagreementFlowKey(a.flow), disagreementFlowKey(b.flow)));
    const columns = (list: typeof rows) => [
      list.map((_, i) => i + 1),
      list.map((r) => r.id),
      list.map((r) => r.other.name),
      list.map((r) => r.other.etag),
      list.map((r) => r.flow.direction),
      list.map((r) => r.flow.srcIp),
      list.map((r) => r.flow.destIp),
      list.map((r) => r.flow.protocol),
      list.map((r) => r.flow.destPort ?? -1),
      list.map((r) => r.flow.action),
      list.map((r) => r.flow.count),
    ];
    const input = `unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::inet[], $7::inet[], $8::text[], $9::int[], $10::text[], $11::bigint[])
      AS u(i, c, e, t, d, s, dst, p, port, a, n)`;
    const known = new Set(
      rows.length === 0 ? [] : ((await query(
        `UPDATE preview_disagreement_flows f SET count = f.count + u.n FROM ${input}
         WHERE f.configuration_id = u.c AND f.other_experiment = u.e AND f.other_etag = u.t AND f.direction = u.d AND f.src_ip = u.s
           AND f.dest_ip = u.dst AND f.protocol = u.p AND f.dest_port = u.port AND f.action = u.a
         RETURNING u.i`,
        columns(rows),
      )) as { i: string }[]).map((row) => Number(row.i) - 1),
    );
    const added = new Map<string, number>();
    const taken = rows.filter((row, i) => {
      if (known.has(i)) return false;
      const count = added.get(row.key) ?? 0;
      if ((keptFlows.get(row.key) ?? 0) + count < PREVIEW_DISAGREEMENT_FLOWS) {
        added.set(row.key, count + 1);
        return true;
      }
      outside.set(row.key, (outside.get(row.key) ?? 0) + row.flow.count);
      return false;
    });
    if (taken.length > 0) {
      await query(
        `INSERT INTO preview_disagreement_flows (configuration_id, other_experiment, other_etag, direction, src_ip, dest_ip, protocol, dest_port, action, count)
         SELECT u.c, u.e, u.t, u.d, u.s, u.dst, u.p, u.port, u.a, u.n FROM ${input}`,
        columns(taken),
      );
    }
    if (added.size > 0 || outside.size > 0) {
      const changed = pairs.filter((p) => added.has(p.key) || outside.has(p.key));
      await query(
        `UPDATE preview_disagreements d SET flows = d.flows + u.f, outside = d.outside + u.o
         FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::bigint[]) AS u(c, e, t, f, o)
         WHERE d.configuration_id = u.c AND d.other_experiment = u.e AND d.other_etag = u.t`,
        [
          changed.map((p) => p.id),
          changed.map((p) => p.tally.other.name),
          changed.map((p) => p.tally.other.etag),
          changed.map((p) => added.get(p.key) ?? 0),
          changed.map((p) => outside.get(p.key) ?? 0),
        ],
      );
    }
  }

  /** The flows a pair at its cap keeps (read once per process: they never change until retention removes the configuration). */
  private async keptDisagreementFlows(query: Query, id: number, other: { name: string; etag: string }): Promise<Set<string>> {
    const key = pairKey(id, other.name, other.etag);
    let flows = this.fullPairs.get(key);
    if (!flows) {
      const rows = (await query(
        `SELECT direction, host(src_ip) AS src, host(dest_ip) AS dst, protocol, dest_port, action FROM preview_disagreement_flows
         WHERE configuration_id = $1 AND other_experiment = $2 AND other_etag = $3`,
        [id, other.name, other.etag],
      )) as { direction: 'INGRESS' | 'EGRESS'; src: string; dst: string; protocol: string; dest_port: number; action: 'allow' | 'deny' }[];
      flows = new Set(
        rows.map((r) =>
          disagreementFlowKey({ direction: r.direction, srcIp: canonical(r.src), destIp: canonical(r.dst), protocol: r.protocol, ...(r.dest_port >= 0 ? { destPort: r.dest_port } : {}), action: r.action, count: 0 }),
        ),
      );
      this.fullPairs.set(key, flows);
    }
    return flows;
  }

  /** Each batch's configuration id, created on first sight (outside the transaction: ids are stable). */
  private async configurationIds(batches: ConfigurationBatch[]): Promise<Map<ConfigurationBatch['target'], number>> {
    const ids = new Map<ConfigurationBatch['target'], number>();
    for (const { target } of batches) {
      const known = this.configurations.get(target.keys.configuration);
      if (known !== undefined) {
        ids.set(target, known);
        continue;
      }
      const versionId = await this.versionId(target.name, target.etag);
      const id = await this.idOf(
        `WITH created AS (
           INSERT INTO preview_configurations (version_id, experiment, live_policy_etag) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id
         )
         SELECT id FROM created UNION ALL SELECT id FROM preview_configurations WHERE version_id = $1 AND live_policy_etag = $3`,
        [versionId, target.name, target.liveEtag],
      );
      this.configurations.set(target.keys.configuration, id);
      ids.set(target, id);
    }
    return ids;
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

  /** Forgets cached ids after retention removed configurations (they are created again if traffic comes). */
  forget(configurationIds: readonly number[]): void {
    const gone = new Set(configurationIds);
    for (const [key, id] of this.configurations) if (gone.has(id)) this.configurations.delete(key);
    for (const key of this.fullPairs.keys()) if (gone.has(Number(key.slice(0, key.indexOf('\n'))))) this.fullPairs.delete(key);
    this.versions.clear();
  }

  private forgetAll(): void {
    this.configurations.clear();
    this.versions.clear();
    this.fullPairs.clear();
  }
}

/** The flow columns, as unnest() of the arrays flowColumns() gives. */
const FLOW_INPUT = `unnest($1::int[], $2::text[], $3::inet[], $4::inet[], $5::text[], $6::int[], $7::int[], $8::int[], $9::text[], $10::bigint[],
  $11::float8[], $12::float8[], $13::jsonb[]) WITH ORDINALITY AS u(c, d, s, t, p, port, lr, er, la, n, f, l, samples, i)`;

/** A flow's samples with new ones appended, the first PREVIEW_FLOW_SAMPLES kept (nothing to do once full). */
const MERGED_SAMPLES = (added: string) => `CASE WHEN jsonb_array_length(f.samples) >= ${PREVIEW_FLOW_SAMPLES} THEN f.samples
      ELSE (SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(f.samples || ${added}) WITH ORDINALITY AS s(e, i) WHERE i <= ${PREVIEW_FLOW_SAMPLES}) END`;

const UPSERT_FLOWS = `INSERT INTO preview_flows AS f (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule,
    live_action, count, first_event_time, last_event_time, samples)
  SELECT u.c, u.d, u.s, u.t, u.p, u.port, u.lr, u.er, u.la, u.n, to_timestamp(u.f / 1000.0), to_timestamp(u.l / 1000.0), u.samples
  FROM ${FLOW_INPUT}
  ON CONFLICT (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule) DO UPDATE SET
    count = f.count + excluded.count,
    first_event_time = LEAST(f.first_event_time, excluded.first_event_time),
    last_event_time = GREATEST(f.last_event_time, excluded.last_event_time),
    samples = ${MERGED_SAMPLES('excluded.samples')}
  RETURNING configuration_id, xmax = 0 AS inserted`;

/** Adds to the flows that exist; returns the (1-based) input positions it found. */
const UPDATE_KNOWN_FLOWS = `UPDATE preview_flows f SET
    count = f.count + u.n,
    first_event_time = LEAST(f.first_event_time, to_timestamp(u.f / 1000.0)),
    last_event_time = GREATEST(f.last_event_time, to_timestamp(u.l / 1000.0)),
    samples = ${MERGED_SAMPLES('u.samples')}
  FROM ${FLOW_INPUT}
  WHERE f.configuration_id = u.c AND f.direction = u.d AND f.src_ip = u.s AND f.dest_ip = u.t AND f.protocol = u.p
    AND f.dest_port = u.port AND f.live_rule = u.lr AND f.experiment_rule = u.er
  RETURNING u.i`;

interface FlowRow {
  id: number;
  flow: FlowTally;
}

/** An address as the flows write it (addressText), from PostgreSQL's text of an inet. */
const canonical = (text: string) => {
  const a = parseAddress(text);
  return a ? addressText(a.family, a.w0, a.w1, a.w2, a.w3) : text;
};

const pairKey = (id: number, experiment: string, etag: string) => `${String(id).padStart(10, '0')}\n${experiment}\n${etag}`;

/** A disagreement flow's key columns as text, for a stable order (rows are locked in it). */
const disagreementFlowKey = (f: DisagreementFlow) => `${f.direction}|${f.srcIp}|${f.destIp}|${f.protocol}|${f.destPort ?? -1}|${f.action}`;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const byFlowKey = (a: FlowRow, b: FlowRow) =>
  a.id - b.id ||
  compare(a.flow.direction, b.flow.direction) ||
  compare(a.flow.srcIp, b.flow.srcIp) ||
  compare(a.flow.destIp, b.flow.destIp) ||
  compare(a.flow.protocol, b.flow.protocol) ||
  (a.flow.destPort ?? -1) - (b.flow.destPort ?? -1) ||
  (a.flow.live.rulePriority ?? IMPLIED_PRIORITY) - (b.flow.live.rulePriority ?? IMPLIED_PRIORITY) ||
  (a.flow.experiment.rulePriority ?? IMPLIED_PRIORITY) - (b.flow.experiment.rulePriority ?? IMPLIED_PRIORITY);

/** The flows as the columns of the flow statements; dest_port -1 stands for "no port" (it is part of the key). */
function flowColumns(rows: FlowRow[]): unknown[][] {
  return [
    rows.map((r) => r.id),
    rows.map((r) => r.flow.direction),
    rows.map((r) => r.flow.srcIp),
    rows.map((r) => r.flow.destIp),
    rows.map((r) => r.flow.protocol),
    rows.map((r) => r.flow.destPort ?? -1),
    rows.map((r) => r.flow.live.rulePriority ?? IMPLIED_PRIORITY),
    rows.map((r) => r.flow.experiment.rulePriority ?? IMPLIED_PRIORITY),
    rows.map((r) => r.flow.live.action),
    rows.map((r) => r.flow.count),
    rows.map((r) => r.flow.firstMs),
    rows.map((r) => r.flow.lastMs),
    rows.map((r) => JSON.stringify(r.flow.samples)),
  ];
}

/** Sorted sequences as inclusive runs of consecutive numbers. */
function runsOf(sorted: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const seq of sorted) {
    const last = runs[runs.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq;
    else if (!last || seq > last[1]) runs.push([seq, seq]);
  }
  return runs;
}

function transpose<T extends unknown[]>(rows: T[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i].push(row[i]);
  return columns;
}
