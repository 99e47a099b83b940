import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PREVIEW_MINUTE_BUCKETS_HOURS, TRAFFIC_STREAM } from '@rollout/contracts';
import { BackgroundLoop, NATS_CONNECTION, NatsNamespace } from '@rollout/nats';
import { poolOf } from '@rollout/postgres';
import { ConsumerInfo, NatsConnection } from 'nats';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { Config, EVALUATOR_CONFIG } from '../config';
import { TRAFFIC_DURABLE } from '../jetstream';
import { PreviewStore } from './preview.store';

/** Rows removed per statement: each DELETE is short, whatever there is to remove. */
const DELETE_BATCH = 5_000;

/**
 * Keeps the preview store bounded, in the background of every replica:
 *
 * - **Counted sequences.** Every TRAFFIC sequence at or below the durable consumer's ack floor
 *   has been settled for good (JetStream never delivers it again), so the ranges there merge
 *   into one row `[0, floor]`: `preview_counted` stays a few rows whatever the traffic.
 *   At start it also checks that the ranges belong to the TRAFFIC stream as it is now (by its
 *   creation time): a stream deleted and created again starts its sequences over, so the ranges
 *   are dropped; a store that has none yet (new, or upgraded from the per-event store) starts
 *   at the consumer's ack floor. Traffic is consumed only after this check.
 * - **Drops.** What TRAFFIC's limits removed before the consumer read it (see observeDrops).
 * - **Retention.** A configuration whose last traffic is older than PREVIEW_RETENTION_MS goes
 *   with its flows and rule counts (so a committed or deleted experiment's report is readable
 *   for that long, then goes), in DELETEs of at most 5,000 rows.
 */
@Injectable()
export class PreviewRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PreviewRetention.name);
  private markReady!: () => void;
  /** Resolves once the counted ranges are known to belong to the current TRAFFIC stream. */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));
  /** Checks the counted ranges against the TRAFFIC stream until that succeeds once. */
  private readonly adoption: BackgroundLoop;
  /** Housekeeping rounds, once adopted; at stop, a last observation of drops. */
  private readonly housekeepingRounds: BackgroundLoop;
  private readonly pool: Pool;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    dataSource: DataSource,
    private readonly store: PreviewStore,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {
    this.pool = poolOf(dataSource);
    this.adoption = new BackgroundLoop({
      name: PreviewRetention.name,
      turn: async () => {
        await this.adoptStream();
        await this.observeDrops();
        this.markReady();
        return 'done';
      },
      intervalMs: 1_000,
      onFailure: (error) => this.logger.warn({ err: error }, 'checking the TRAFFIC stream against the counted sequences failed; retrying'),
    });
    this.housekeepingRounds = new BackgroundLoop({
      name: PreviewRetention.name,
      turn: () => this.housekeeping(),
      intervalMs: config.PREVIEW_HOUSEKEEPING_INTERVAL_MS,
      firstTurnAfterInterval: true,
      onFailure: (error) => this.logger.warn({ err: error }, 'preview housekeeping failed; will retry'),
      // What this replica read is on record, so drops while every evaluator is stopped are certain.
      drain: () => this.observeDrops().catch((error: unknown) => this.logger.warn({ err: error }, 'observing TRAFFIC drops at shutdown failed')),
    });
  }

  onApplicationBootstrap(): void {
    this.adoption.start();
    this.housekeepingRounds.start(this.ready);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.adoption.stop();
    await this.housekeepingRounds.stop();
  }

  /** One round: merge counted ranges, note what TRAFFIC dropped, roll time buckets up, remove expired configurations. Exposed for tests. */
  async housekeeping(): Promise<void> {
    await this.compact((await this.consumerInfo()).ack_floor.stream_seq);
    await this.observeDrops();
    await this.rollUp();
    await this.expire();
  }

  /**
   * TRAFFIC removes its oldest messages past its age or size limit, read or not. With S the
   * consumer's ack floor at the last observation (any replica's, kept in Postgres: everything
   * up to it was settled) and D its delivered sequence now, a removed message above D was
   * dropped unread for sure, one between S and D was read or dropped: this observation cannot
   * tell (undetermined). Each sequence is recorded once (`through_seq`: the highest sequence an
   * observation covered). Observations run at start before the consumer does, at every round,
   * and at shutdown, so what went while every evaluator was stopped is found for sure. A drop is
   * the stream's, never a policy's: its subject is gone with it.
   */
  private async observeDrops(): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    const consumer = await this.consumerInfo();
    const delivered = consumer.delivered.stream_seq;
    const removedThrough = (await jsm.streams.info(this.namespace.stream(TRAFFIC_STREAM))).state.first_seq - 1;
    await this.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('preview_traffic_drops'))`);
      const [{ settled }] = (await client.query<{ settled: string | null }>(`SELECT settled_seq AS settled FROM preview_traffic_stream`)).rows;
      const settledBefore = Math.min(settled === null ? consumer.ack_floor.stream_seq : Number(settled), delivered);
      await client.query(
        `WITH mark AS (SELECT COALESCE(max(through_seq), 0) AS seq FROM preview_traffic_drops)
         INSERT INTO preview_traffic_drops (through_seq, dropped, undetermined)
         SELECT $1, $1 - GREATEST($2, mark.seq), GREATEST($2, mark.seq) - GREATEST($3, mark.seq) FROM mark
         WHERE $1 > GREATEST($3, mark.seq)`,
        [removedThrough, Math.min(delivered, removedThrough), settledBefore],
      );
      await client.query(`UPDATE preview_traffic_stream SET settled_seq = $1`, [consumer.ack_floor.stream_seq]);
    });
  }

  /**
   * Minute buckets more than PREVIEW_MINUTE_BUCKETS_HOURS before their configuration's last
   * event become hour buckets, and hour buckets older than the retention period go: a
   * configuration holds at most about 360 minute and 168 hour buckets (7 days), whatever its
   * traffic. Moving and adding happen in one statement, so no event is lost or counted twice,
   * even beside a batch adding to the same minute.
   */
  private async rollUp(): Promise<void> {
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
      [this.config.PREVIEW_RETENTION_MS / 1000],
    );
  }

  private async consumerInfo(): Promise<ConsumerInfo> {
    const jsm = await this.connection.jetstreamManager();
    return jsm.consumers.info(this.namespace.stream(TRAFFIC_STREAM), TRAFFIC_DURABLE);
  }

  private async adoptStream(): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    const created = (await jsm.streams.info(this.namespace.stream(TRAFFIC_STREAM))).created;
    const floor = (await this.consumerInfo()).ack_floor.stream_seq;
    await this.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('preview_counted'))`);
      const [known] = (await client.query<{ created: string }>(`SELECT created FROM preview_traffic_stream`)).rows;
      if (known?.created === created) return;
      if (known) {
        this.logger.warn({ was: known.created, now: created }, 'TRAFFIC was created again: its sequences start over, so the counted ranges of the old stream are dropped');
        await client.query(`DELETE FROM preview_counted`);
        await client.query(`DELETE FROM preview_traffic_drops`);
        await client.query(`UPDATE preview_traffic_stream SET settled_seq = NULL`);
        await client.query(`UPDATE preview_traffic_stream SET created = $1`, [created]);
        return;
      }
      await client.query(`INSERT INTO preview_traffic_stream (created) VALUES ($1)`, [created]);
      await this.merge(client, floor);
    });
  }

  private async compact(floor: number): Promise<void> {
    await this.transaction(async (client) => {
      const [{ locked }] = (await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('preview_counted')) AS locked`)).rows;
      if (locked) await this.merge(client, floor);
    });
  }

  /** Every range reaching down to the floor becomes one `[0, max(floor, its top)]`. */
  private async merge(client: PoolClient, floor: number): Promise<void> {
    const removed = (await client.query<{ hi: string }>(`DELETE FROM preview_counted WHERE lo <= $1 RETURNING hi`, [floor])).rows;
    const top = removed.reduce((max, row) => Math.max(max, Number(row.hi)), floor);
    await client.query(`INSERT INTO preview_counted (lo, hi) VALUES (0, $1)`, [top]);
  }

  private async expire(): Promise<void> {
    const cutoff = new Date(Date.now() - this.config.PREVIEW_RETENTION_MS).toISOString();
    const expired = (await this.pool.query<{ id: number }>(`SELECT id FROM preview_configurations WHERE updated_at < $1 ORDER BY updated_at LIMIT 100`, [cutoff])).rows;
    for (const { id } of expired) {
      if (!this.housekeepingRounds.isRunning) return;
      for (;;) {
        const { rowCount } = await this.pool.query(
          `DELETE FROM preview_flows WHERE ctid = ANY(ARRAY(SELECT ctid FROM preview_flows WHERE configuration_id = $1 LIMIT ${DELETE_BATCH}))`,
          [id],
        );
        if ((rowCount ?? 0) < DELETE_BATCH) break;
      }
      await this.transaction(async (client) => {
        const { rowCount } = await client.query(`DELETE FROM preview_configurations WHERE id = $1 AND updated_at < $2`, [id, cutoff]);
        if (!rowCount) return; // traffic came back meanwhile: it stays
        await client.query(`DELETE FROM preview_rule_counts WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_transitions WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_time_buckets WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_dead_letters WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_disagreement_flows WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_disagreements WHERE configuration_id = $1`, [id]);
        await client.query(`DELETE FROM preview_versions v WHERE NOT EXISTS (SELECT 1 FROM preview_configurations c WHERE c.version_id = v.id)`);
      });
    }
    // The newest observation stays: its through_seq is the mark the next one counts from.
    await this.pool.query(
      `DELETE FROM preview_traffic_drops WHERE observed_at < $1 AND through_seq < (SELECT max(through_seq) FROM preview_traffic_drops)`,
      [cutoff],
    );
    if (expired.length > 0) {
      this.store.forget(expired.map((e) => e.id));
      this.logger.log({ configurations: expired.length }, 'removed preview configurations past retention');
    }
  }

  private async transaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
