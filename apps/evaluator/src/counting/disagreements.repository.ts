import { Injectable } from '@nestjs/common';
import { PREVIEW_DISAGREEMENT_FLOWS } from '@rollout/contracts';
import { parseAddress } from '@rollout/domain/firewall';
import { DisagreementFlow, addressText } from '@rollout/domain/preview';
import { ConfigurationEntry, Query, compare } from './counting-statements';

/** What other ACTIVE experiments decide differently (preview_disagreements and their flows), written in the counting transaction. */
@Injectable()
export class DisagreementsRepository {
  /** Kept flow keys of disagreement pairs at their cap, by pair (see keptFlows). */
  private readonly fullPairs = new Map<string, Set<string>>();

  /**
   * Adds what other ACTIVE experiments decide differently (only with two or more on a policy).
   * Flows are kept per pair up to PREVIEW_DISAGREEMENT_FLOWS, first by key, as the changed flows are;
   * the configuration's row lock makes the limit exact.
   */
  async add(query: Query, entries: ConfigurationEntry[]): Promise<void> {
    const pairs = entries
      .flatMap(({ batch, id }) =>
        [...batch.disagreements.values()].map((tally) => ({
          id,
          tally,
          key: pairKey(id, tally.other.name, tally.other.etag),
        })),
      )
      .sort((a, b) => compare(a.key, b.key));
    if (pairs.length === 0) return;
    const kept = (await query(
      `INSERT INTO preview_disagreements AS d (configuration_id, other_experiment, other_etag, events)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bigint[])
       ON CONFLICT (configuration_id, other_experiment, other_etag) DO UPDATE SET events = d.events + excluded.events
       RETURNING configuration_id, other_experiment, other_etag, flows`,
      [
        pairs.map((p) => p.id),
        pairs.map((p) => p.tally.other.name),
        pairs.map((p) => p.tally.other.etag),
        pairs.map((p) => p.tally.events),
      ],
    )) as {
      configuration_id: number;
      other_experiment: string;
      other_etag: string;
      flows: number;
    }[];
    const keptFlows = new Map(
      kept.map((row) => [
        pairKey(row.configuration_id, row.other_experiment, row.other_etag),
        row.flows,
      ]),
    );
    // A pair at its cap keeps the flows it has for good: only those are sent to be updated.
    const full = new Map<string, Set<string>>();
    for (const p of pairs)
      if ((keptFlows.get(p.key) ?? 0) >= PREVIEW_DISAGREEMENT_FLOWS)
        full.set(p.key, await this.keptFlows(query, p.id, p.tally.other));
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
    rows.sort(
      (a, b) =>
        compare(a.key, b.key) || compare(disagreementFlowKey(a.flow), disagreementFlowKey(b.flow)),
    );
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
      rows.length === 0
        ? []
        : (
            (await query(
              `UPDATE preview_disagreement_flows f SET count = f.count + u.n FROM ${input}
         WHERE f.configuration_id = u.c AND f.other_experiment = u.e AND f.other_etag = u.t AND f.direction = u.d AND f.src_ip = u.s
           AND f.dest_ip = u.dst AND f.protocol = u.p AND f.dest_port = u.port AND f.action = u.a
         RETURNING u.i`,
              columns(rows),
            )) as { i: string }[]
          ).map((row) => Number(row.i) - 1),
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
  private async keptFlows(
    query: Query,
    id: number,
    other: { name: string; etag: string },
  ): Promise<Set<string>> {
    const key = pairKey(id, other.name, other.etag);
    let flows = this.fullPairs.get(key);
    if (!flows) {
      const rows = (await query(
        `SELECT direction, host(src_ip) AS src, host(dest_ip) AS dst, protocol, dest_port, action FROM preview_disagreement_flows
         WHERE configuration_id = $1 AND other_experiment = $2 AND other_etag = $3`,
        [id, other.name, other.etag],
      )) as {
        direction: 'INGRESS' | 'EGRESS';
        src: string;
        dst: string;
        protocol: string;
        dest_port: number;
        action: 'allow' | 'deny';
      }[];
      flows = new Set(
        rows.map((r) =>
          disagreementFlowKey({
            direction: r.direction,
            srcIp: canonical(r.src),
            destIp: canonical(r.dst),
            protocol: r.protocol,
            ...(r.dest_port >= 0 ? { destPort: r.dest_port } : {}),
            action: r.action,
            count: 0,
          }),
        ),
      );
      this.fullPairs.set(key, flows);
    }
    return flows;
  }

  /** Forgets the kept flows of configurations retention removed. */
  forget(gone: ReadonlySet<number>): void {
    for (const key of this.fullPairs.keys())
      if (gone.has(Number(key.slice(0, key.indexOf('\n'))))) this.fullPairs.delete(key);
  }

  forgetAll(): void {
    this.fullPairs.clear();
  }
}

/** An address as the flows write it (addressText), from PostgreSQL's text of an inet. */
const canonical = (text: string) => {
  const a = parseAddress(text);
  return a ? addressText(a.family, a.w0, a.w1, a.w2, a.w3) : text;
};

const pairKey = (id: number, experiment: string, etag: string) =>
  `${String(id).padStart(10, '0')}\n${experiment}\n${etag}`;

/** A disagreement flow's key columns as text, for a stable order (rows are locked in it). */
const disagreementFlowKey = (f: DisagreementFlow) =>
  `${f.direction}|${f.srcIp}|${f.destIp}|${f.protocol}|${f.destPort ?? -1}|${f.action}`;
