import { Injectable } from '@nestjs/common';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import { FlowTally, IMPLIED_PRIORITY } from '@rollout/domain/preview';
import { Query, compare } from '../statements';
import { ConfigurationEntry } from './counting-statements';

/** The changed flows of each configuration (preview_flows), written in the counting transaction. */
@Injectable()
export class ChangedFlowsRepository {
  /**
   * Adds the batch's changed flows. A configuration with room for every flow of the batch takes
   * them in one upsert (the common case). One near EVALUATOR_MAX_FLOWS adds to the flows it has,
   * takes new ones while there is room (first by key), and counts the changed events of the
   * rest as outside the flows. `room` is read under the configuration's row lock, so the limit
   * is exact whatever the replicas.
   */
  async add(query: Query, entries: ConfigurationEntry[], room: Map<number, number>) {
    const inserted = new Map<number, number>();
    const outside = new Map<number, number>();
    const roomy: FlowRow[] = [];
    for (const { batch, id } of entries) {
      const rows = [...batch.flows.values()].map((flow) => ({ id, flow })).sort(byFlowKey);
      if (rows.length <= (room.get(id) ?? 0)) {
        roomy.push(...rows);
        continue;
      }
      const known = new Set(
        ((await query(UPDATE_KNOWN_FLOWS, flowColumns(rows))) as { i: string }[]).map(
          (row) => Number(row.i) - 1,
        ),
      );
      const unknown = rows.filter((_, i) => !known.has(i));
      const taken = unknown.slice(0, room.get(id) ?? 0);
      if (taken.length > 0) {
        const added = (await query(UPSERT_FLOWS, flowColumns(taken))) as { inserted: boolean }[];
        inserted.set(id, added.filter((row) => row.inserted).length);
      }
      outside.set(
        id,
        unknown.slice(taken.length).reduce((sum, row) => sum + row.flow.count, 0),
      );
    }
    if (roomy.length > 0) {
      for (const row of (await query(UPSERT_FLOWS, flowColumns(roomy))) as {
        configuration_id: number;
        inserted: boolean;
      }[]) {
        if (row.inserted)
          inserted.set(row.configuration_id, (inserted.get(row.configuration_id) ?? 0) + 1);
      }
    }
    return { inserted, outside };
  }
}

/** The flow columns, as unnest() of the arrays flowColumns() gives. */
const FLOW_INPUT = `unnest($1::int[], $2::text[], $3::inet[], $4::inet[], $5::text[], $6::int[], $7::int[], $8::int[], $9::text[], $10::bigint[],
  $11::float8[], $12::float8[], $13::jsonb[]) WITH ORDINALITY AS u(c, d, s, t, p, port, lr, er, la, n, f, l, samples, i)`;

/** A flow's samples with new ones appended, the first PREVIEW_FLOW_SAMPLES kept (nothing to do once full). */
const MERGED_SAMPLES = (
  added: string,
) => `CASE WHEN jsonb_array_length(f.samples) >= ${PREVIEW_FLOW_SAMPLES} THEN f.samples
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

const byFlowKey = (a: FlowRow, b: FlowRow) =>
  a.id - b.id ||
  compare(a.flow.direction, b.flow.direction) ||
  compare(a.flow.srcIp, b.flow.srcIp) ||
  compare(a.flow.destIp, b.flow.destIp) ||
  compare(a.flow.protocol, b.flow.protocol) ||
  (a.flow.destPort ?? -1) - (b.flow.destPort ?? -1) ||
  (a.flow.live.rulePriority ?? IMPLIED_PRIORITY) - (b.flow.live.rulePriority ?? IMPLIED_PRIORITY) ||
  (a.flow.experiment.rulePriority ?? IMPLIED_PRIORITY) -
    (b.flow.experiment.rulePriority ?? IMPLIED_PRIORITY);

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
