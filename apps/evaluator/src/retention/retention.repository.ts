import { Injectable } from '@nestjs/common';
import { PREVIEW_MINUTE_BUCKETS_HOURS } from '@rollout/contracts';
import { inTransaction, poolOf } from '@rollout/platform/postgres';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';

/** Keeps each DELETE short, whatever there is to remove. */
const DELETE_BATCH = 5_000;

export interface ConsumerPositions {
  ackFloor: number;
  delivered: number;
}

@Injectable()
export class RetentionRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  async recordDrops(consumer: ConsumerPositions, removedThrough: number): Promise<void> {
    const { ackFloor, delivered } = consumer;
    await inTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('preview_traffic_drops'))`);
      const [{ settled }] = (
        await client.query<{ settled: string | null }>(
          `SELECT settled_seq AS settled FROM preview_traffic_stream`,
        )
      ).rows;
      const settledBefore = Math.min(settled === null ? ackFloor : Number(settled), delivered);
      await client.query(
        `WITH mark AS (SELECT COALESCE(max(through_seq), 0) AS seq FROM preview_traffic_drops)
         INSERT INTO preview_traffic_drops (through_seq, dropped, undetermined)
         SELECT $1, $1 - GREATEST($2, mark.seq), GREATEST($2, mark.seq) - GREATEST($3, mark.seq) FROM mark
         WHERE $1 > GREATEST($3, mark.seq)`,
        [removedThrough, Math.min(delivered, removedThrough), settledBefore],
      );
      await client.query(`UPDATE preview_traffic_stream SET settled_seq = $1`, [ackFloor]);
    });
  }

  /**
   * Bounds a configuration to about 360 minute and 168 hour buckets whatever its traffic; one
   * statement moves and adds, so no event is lost or counted twice beside a concurrent batch.
   */
  async rollUp(retentionMs: number): Promise<void> {
    await this.pool.query(
      `WITH moved AS (
         DELETE FROM preview_time_buckets b USING preview_configurations c
         WHERE b.configuration_id = c.id AND b.width_seconds = 60 AND b.start_time < c.last_event_time - make_interval(hours => $1)
         RETURNING b.configuration_id, b.start_time, b.evaluated, b.changed, b.allow_to_deny, b.deny_to_allow
       )
       INSERT INTO preview_time_buckets AS h (configuration_id, width_seconds, start_time, evaluated, changed, allow_to_deny, deny_to_allow)
       SELECT configuration_id, 3600, date_trunc('hour', start_time), sum(evaluated), sum(changed), sum(allow_to_deny), sum(deny_to_allow)
       FROM moved GROUP BY configuration_id, date_trunc('hour', start_time)
       ON CONFLICT (configuration_id, width_seconds, start_time) DO UPDATE SET
         evaluated = h.evaluated + excluded.evaluated, changed = h.changed + excluded.changed,
         allow_to_deny = h.allow_to_deny + excluded.allow_to_deny, deny_to_allow = h.deny_to_allow + excluded.deny_to_allow`,
      [PREVIEW_MINUTE_BUCKETS_HOURS],
    );
    await this.pool.query(
      `DELETE FROM preview_time_buckets b USING preview_configurations c
       WHERE b.configuration_id = c.id AND b.start_time < c.last_event_time - make_interval(secs => $1)`,
      [retentionMs / 1000],
    );
  }

  /** Answers the stream creation time the store knew before, if it was another. */
  async adoptStream(created: string, floor: number): Promise<string | undefined> {
    let replaced: string | undefined;
    await inTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('preview_counted'))`);
      const [known] = (
        await client.query<{ created: string }>(`SELECT created FROM preview_traffic_stream`)
      ).rows;
      if (known?.created === created) return;
      if (known) {
        replaced = known.created;
        await client.query(`DELETE FROM preview_counted`);
        await client.query(`DELETE FROM preview_traffic_drops`);
        await client.query(`UPDATE preview_traffic_stream SET settled_seq = NULL`);
        await client.query(`UPDATE preview_traffic_stream SET created = $1`, [created]);
        return;
      }
      await client.query(`INSERT INTO preview_traffic_stream (created) VALUES ($1)`, [created]);
      await this.merge(client, floor);
    });
    return replaced;
  }

  async compact(floor: number): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const [{ locked }] = (
        await client.query<{ locked: boolean }>(
          `SELECT pg_try_advisory_xact_lock(hashtext('preview_counted')) AS locked`,
        )
      ).rows;
      if (locked) await this.merge(client, floor);
    });
  }

  async expiredConfigurations(cutoff: string): Promise<number[]> {
    const expired = (
      await this.pool.query<{ id: number }>(
        `SELECT id FROM preview_configurations WHERE updated_at < $1 ORDER BY updated_at LIMIT 100`,
        [cutoff],
      )
    ).rows;
    return expired.map((row) => row.id);
  }

  async removeConfiguration(id: number, cutoff: string): Promise<void> {
    // In slices: a cohort may hold EVALUATOR_MAX_FLOWS flows.
    for (;;) {
      const { rowCount } = await this.pool.query(
        `DELETE FROM preview_outcome_flows WHERE ctid = ANY(ARRAY(
           SELECT f.ctid FROM preview_cohorts c JOIN preview_outcome_flows f ON f.cohort_id = c.id
           WHERE $1 = ANY (c.configuration_ids)
             AND NOT EXISTS (SELECT 1 FROM preview_configurations p WHERE p.id = ANY (c.configuration_ids) AND p.id <> $1)
           LIMIT ${DELETE_BATCH}))`,
        [id],
      );
      if ((rowCount ?? 0) < DELETE_BATCH) break;
    }
    await inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `DELETE FROM preview_configurations WHERE id = $1 AND updated_at < $2`,
        [id, cutoff],
      );
      if (!rowCount) return; // traffic came back meanwhile: it stays
      await client.query(`DELETE FROM preview_rule_counts WHERE configuration_id = $1`, [id]);
      await client.query(`DELETE FROM preview_transitions WHERE configuration_id = $1`, [id]);
      await client.query(`DELETE FROM preview_time_buckets WHERE configuration_id = $1`, [id]);
      await client.query(`DELETE FROM preview_dead_letters WHERE configuration_id = $1`, [id]);
      // A cohort also holds its other members' disagreement with each other: it goes with its last member.
      await client.query(
        `DELETE FROM preview_cohorts c WHERE $1 = ANY (c.configuration_ids)
           AND NOT EXISTS (SELECT 1 FROM preview_configurations p WHERE p.id = ANY (c.configuration_ids))`,
        [id],
      );
      await client.query(
        `DELETE FROM preview_versions v WHERE NOT EXISTS (SELECT 1 FROM preview_configurations c WHERE c.version_id = v.id)`,
      );
    });
  }

  /** The newest stays: the next observation counts from its through_seq. */
  async removeOldDrops(cutoff: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM preview_traffic_drops WHERE observed_at < $1 AND through_seq < (SELECT max(through_seq) FROM preview_traffic_drops)`,
      [cutoff],
    );
  }

  private async merge(client: PoolClient, floor: number): Promise<void> {
    const removed = (
      await client.query<{ hi: string }>(
        `DELETE FROM preview_counted WHERE lo <= $1 RETURNING hi`,
        [floor],
      )
    ).rows;
    const top = removed.reduce((max, row) => Math.max(max, Number(row.hi)), floor);
    await client.query(`INSERT INTO preview_counted (lo, hi) VALUES (0, $1)`, [top]);
  }
}
