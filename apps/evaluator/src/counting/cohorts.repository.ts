import { Injectable } from '@nestjs/common';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import { ActiveExperiment, CohortBatch, CohortFlow } from '@rollout/domain/preview';
import { DataSource } from 'typeorm';
import { Query, compare } from '../statements';

/**
 * Counts per cohort (the experiments ACTIVE together on a live policy version), never per member
 * or pair: those are derived when the report is read (disagreement-reads.ts). Mask bit i: the
 * cohort's i-th configuration denies.
 */
@Injectable()
export class CohortsRepository {
  /** By configuration ids (`1,4,9`). */
  private readonly cohorts = new Map<string, number>();

  constructor(private readonly dataSource: DataSource) {}

  /** Outside the transaction: ids are stable. */
  async idsOf(
    cohorts: readonly CohortBatch[],
    configurationIds: ReadonlyMap<ActiveExperiment, number>,
  ): Promise<Map<CohortBatch, number>> {
    const ids = new Map<CohortBatch, number>();
    for (const cohort of cohorts) {
      const members = cohort.targets.map((target) => configurationIds.get(target) as number);
      const key = members.join(',');
      let id = this.cohorts.get(key);
      for (let attempt = 0; id === undefined; attempt++) {
        const [row]: { id: number }[] = await this.dataSource.query(
          `WITH created AS (
             INSERT INTO preview_cohorts (configuration_ids) VALUES ($1::int[]) ON CONFLICT DO NOTHING RETURNING id
           )
           SELECT id FROM created UNION ALL SELECT id FROM preview_cohorts WHERE configuration_ids = $1::int[]`,
          [members],
        );
        if (row) this.cohorts.set(key, (id = row.id));
        else if (attempt >= 5) throw new Error('cannot create or find a preview cohort');
      }
      ids.set(cohort, id);
    }
    return ids;
  }

  /** The first `maxFlows` flows by key, under the cohort's row lock: exact whatever the replicas. */
  async add(
    query: Query,
    cohorts: ReadonlyMap<CohortBatch, number>,
    maxFlows: number,
  ): Promise<void> {
    if (cohorts.size === 0) return;
    const entries = [...cohorts].sort((a, b) => a[1] - b[1]);
    const locked = (await query(
      `SELECT id, flows FROM preview_cohorts WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`,
      [entries.map(([, id]) => id)],
    )) as { id: number; flows: number }[];
    if (locked.length !== entries.length)
      throw new Error('a preview cohort was removed by retention meanwhile');
    const room = new Map(locked.map((row) => [row.id, Math.max(0, maxFlows - row.flows)]));
    const masks = entries.flatMap(([cohort, id]) =>
      [...cohort.masks].map(([mask, events]) => ({ id, mask, events })),
    );
    const outcomes = entries.flatMap(([cohort, id]) =>
      [...cohort.outcomes.values()]
        .sort((a, b) => compare(a.key, b.key))
        .map((outcome) => ({ id, outcome })),
    );
    await query(UPSERT_OUTCOMES_AND_MASKS, [
      masks.map((m) => m.id),
      masks.map((m) => m.mask),
      masks.map((m) => m.events),
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.outcome.livePriority),
      outcomes.map((o) => o.outcome.liveAction),
      outcomes.map((o) => o.outcome.experimentPriorities.join(',')),
      outcomes.map((o) => o.outcome.experimentActions),
      outcomes.map((o) => o.outcome.count),
    ]);
    const rows: FlowRow[] = [];
    const outside: FlowRow[] = [];
    for (const [cohort, id] of entries) {
      const flows = [...cohort.flows.values()]
        .map((flow) => ({ id, flow, key: flowKey(flow) }))
        .sort((a, b) => compare(a.key, b.key));
      if (flows.length <= (room.get(id) ?? 0)) {
        rows.push(...flows);
        continue;
      }
      // Near its cap: add to the flows it keeps, take new ones while there is room.
      const known = new Set(
        ((await query(UPDATE_KNOWN_FLOWS, flowColumns(flows))) as { i: string }[]).map(
          (row) => Number(row.i) - 1,
        ),
      );
      const unknown = flows.filter((_, i) => !known.has(i));
      const taken = room.get(id) ?? 0;
      rows.push(...unknown.slice(0, taken));
      outside.push(...unknown.slice(taken));
    }
    if (outside.length > 0) await query(ADD_OUTSIDE, outsideColumns(outside));
    if (rows.length === 0) return;
    const inserted = new Map<number, number>();
    for (const row of (await query(UPSERT_FLOWS, flowColumns(rows))) as {
      cohort_id: number;
      inserted: boolean;
    }[])
      if (row.inserted) inserted.set(row.cohort_id, (inserted.get(row.cohort_id) ?? 0) + 1);
    if (inserted.size > 0)
      await query(
        `UPDATE preview_cohorts c SET flows = c.flows + u.n FROM unnest($1::int[], $2::int[]) AS u(id, n) WHERE c.id = u.id`,
        [[...inserted.keys()], [...inserted.values()]],
      );
  }

  forget(gone: ReadonlySet<number>): void {
    for (const key of this.cohorts.keys())
      if (key.split(',').some((id) => gone.has(Number(id)))) this.cohorts.delete(key);
  }

  forgetAll(): void {
    this.cohorts.clear();
  }
}

interface FlowRow {
  id: number;
  flow: CohortFlow;
  key: string;
}

/** Rows are locked in this order. */
const flowKey = (f: CohortFlow) =>
  `${f.direction}|${f.srcIp}|${f.destIp}|${f.protocol}|${f.destPort ?? -1}|${f.outcome.key}`;

// One statement for both (a data-modifying WITH runs whether or not it is read).
const UPSERT_OUTCOMES_AND_MASKS = `WITH outcomes AS (
    INSERT INTO preview_outcomes AS o (cohort_id, live_priority, live_action, experiment_priorities, experiment_actions, count)
    SELECT u.c, u.lp, u.la, string_to_array(u.ep, ',')::int[], u.ea, u.n
    FROM unnest($4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::bigint[]) AS u(c, lp, la, ep, ea, n)
    ON CONFLICT (cohort_id, live_priority, live_action, experiment_priorities, experiment_actions)
      DO UPDATE SET count = o.count + excluded.count
  )
  INSERT INTO preview_cohort_masks AS m (cohort_id, mask, events)
  SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[])
  ON CONFLICT (cohort_id, mask) DO UPDATE SET events = m.events + excluded.events`;

const FLOW_INPUT = `unnest($1::int[], $2::text[], $3::inet[], $4::inet[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[],
    $10::text[], $11::int[], $12::bigint[], $13::float8[], $14::float8[], $15::jsonb[])
  WITH ORDINALITY AS u(c, d, s, t, p, port, lp, la, ep, ea, m, n, f, l, samples, i)`;

const MERGED_SAMPLES = (
  added: string,
) => `CASE WHEN jsonb_array_length(f.samples) >= ${PREVIEW_FLOW_SAMPLES} THEN f.samples
      ELSE (SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(f.samples || ${added}) WITH ORDINALITY AS s(e, i) WHERE i <= ${PREVIEW_FLOW_SAMPLES}) END`;

/** Returns the 1-based input positions it found. */
const UPDATE_KNOWN_FLOWS = `UPDATE preview_outcome_flows f SET
    count = f.count + u.n,
    first_event_time = LEAST(f.first_event_time, to_timestamp(u.f / 1000.0)),
    last_event_time = GREATEST(f.last_event_time, to_timestamp(u.l / 1000.0)),
    samples = ${MERGED_SAMPLES('u.samples')}
  FROM ${FLOW_INPUT}
  WHERE f.cohort_id = u.c AND f.direction = u.d AND f.src_ip = u.s AND f.dest_ip = u.t AND f.protocol = u.p
    AND f.dest_port = u.port AND f.live_priority = u.lp AND f.live_action = u.la
    AND f.experiment_priorities = string_to_array(u.ep, ',')::int[] AND f.experiment_actions = u.ea
  RETURNING u.i`;

const UPSERT_FLOWS = `INSERT INTO preview_outcome_flows AS f (cohort_id, direction, src_ip, dest_ip, protocol, dest_port, live_priority,
    live_action, experiment_priorities, experiment_actions, mask, count, first_event_time, last_event_time, samples)
  SELECT u.c, u.d, u.s, u.t, u.p, u.port, u.lp, u.la, string_to_array(u.ep, ',')::int[], u.ea, u.m, u.n,
         to_timestamp(u.f / 1000.0), to_timestamp(u.l / 1000.0), u.samples
  FROM ${FLOW_INPUT}
  ON CONFLICT (cohort_id, direction, src_ip, dest_ip, protocol, dest_port, live_priority, live_action, experiment_priorities,
               experiment_actions)
  DO UPDATE SET
    count = f.count + excluded.count,
    first_event_time = LEAST(f.first_event_time, excluded.first_event_time),
    last_event_time = GREATEST(f.last_event_time, excluded.last_event_time),
    samples = ${MERGED_SAMPLES('excluded.samples')}
  RETURNING f.cohort_id, (xmax = 0) AS inserted`;

const ADD_OUTSIDE = `UPDATE preview_outcomes o SET outside = o.outside + u.n
  FROM (SELECT c, lp, la, ep, ea, sum(n) AS n
        FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS u(c, lp, la, ep, ea, n)
        GROUP BY c, lp, la, ep, ea) u
  WHERE o.cohort_id = u.c AND o.live_priority = u.lp AND o.live_action = u.la
    AND o.experiment_priorities = string_to_array(u.ep, ',')::int[] AND o.experiment_actions = u.ea`;

const flowColumns = (rows: readonly FlowRow[]) => [
  rows.map((r) => r.id),
  rows.map((r) => r.flow.direction),
  rows.map((r) => r.flow.srcIp),
  rows.map((r) => r.flow.destIp),
  rows.map((r) => r.flow.protocol),
  rows.map((r) => r.flow.destPort ?? -1),
  rows.map((r) => r.flow.outcome.livePriority),
  rows.map((r) => r.flow.outcome.liveAction),
  rows.map((r) => r.flow.outcome.experimentPriorities.join(',')),
  rows.map((r) => r.flow.outcome.experimentActions),
  rows.map((r) => r.flow.mask),
  rows.map((r) => r.flow.count),
  rows.map((r) => r.flow.firstMs),
  rows.map((r) => r.flow.lastMs),
  rows.map((r) => JSON.stringify(r.flow.samples)),
];

const outsideColumns = (rows: readonly FlowRow[]) => [
  rows.map((r) => r.id),
  rows.map((r) => r.flow.outcome.livePriority),
  rows.map((r) => r.flow.outcome.liveAction),
  rows.map((r) => r.flow.outcome.experimentPriorities.join(',')),
  rows.map((r) => r.flow.outcome.experimentActions),
  rows.map((r) => r.flow.count),
];
