import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { TRAFFIC_STREAM } from '@rollout/contracts';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/nats';
import { poolOf } from '@rollout/postgres';
import { NatsConnection } from 'nats';
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
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly pool: Pool;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    dataSource: DataSource,
    private readonly store: PreviewStore,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {
    this.pool = poolOf(dataSource);
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.adoptStream();
        this.markReady();
        break;
      } catch (error) {
        this.logger.warn({ err: error }, 'checking the TRAFFIC stream against the counted sequences failed; retrying');
        await this.sleep(1_000);
      }
    }
    while (this.running) {
      await this.sleep(this.config.PREVIEW_HOUSEKEEPING_INTERVAL_MS);
      if (!this.running) break;
      try {
        await this.housekeeping();
      } catch (error) {
        this.logger.warn({ err: error }, 'preview housekeeping failed; will retry');
      }
    }
  }

  /** One round: merge counted ranges, then remove expired configurations. Exposed for tests. */
  async housekeeping(): Promise<void> {
    await this.compact(await this.ackFloor());
    await this.expire();
  }

  private async ackFloor(): Promise<number> {
    const jsm = await this.connection.jetstreamManager();
    const info = await jsm.consumers.info(this.namespace.stream(TRAFFIC_STREAM), TRAFFIC_DURABLE);
    return info.ack_floor.stream_seq;
  }

  private async adoptStream(): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    const created = (await jsm.streams.info(this.namespace.stream(TRAFFIC_STREAM))).created;
    const floor = await this.ackFloor();
    await this.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('preview_counted'))`);
      const [known] = (await client.query<{ created: string }>(`SELECT created FROM preview_traffic_stream`)).rows;
      if (known?.created === created) return;
      if (known) {
        this.logger.warn({ was: known.created, now: created }, 'TRAFFIC was created again: its sequences start over, so the counted ranges of the old stream are dropped');
        await client.query(`DELETE FROM preview_counted`);
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
      if (!this.running) return;
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
        await client.query(`DELETE FROM preview_versions v WHERE NOT EXISTS (SELECT 1 FROM preview_configurations c WHERE c.version_id = v.id)`);
      });
    }
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

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
