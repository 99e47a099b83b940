import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/nats';
import { NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { Config, EVALUATOR_CONFIG } from '../config';
import { runsOfTexts } from './log-messages';
import type { OutboxBatch } from './preview.store';

/**
 * Publishes committed preview-log batches to PREVIEW_LOGS (a transactional outbox).
 *
 * The records of a batch are in the store, with an outbox row, before the traffic is
 * acknowledged. Right after the commit the batch is published here and its outbox row deleted.
 * If the process dies in between, the relay loop (any replica) publishes rows older than
 * PREVIEW_LOG_RELAY_DELAY_MS again, from the store, split into the same messages with the same
 * Nats-Msg-Id (`preview-log:{outbox id}:{part}`), so the stream stores each message once
 * when the republish falls within its duplicate window.
 */
@Injectable()
export class PreviewLogPublisher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PreviewLogPublisher.name);
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private relayLoop?: Promise<void>;
  private wake?: () => void;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    private readonly dataSource: DataSource,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.relayLoop = this.relay();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.relayLoop;
    await this.settled();
  }

  /** Batches being published now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Publishes batches just committed; a failure is left to the relay. */
  publish(batches: OutboxBatch[]): void {
    if (batches.length === 0) return;
    const task = this.publishAndForget(batches)
      .catch((error) => this.logger.warn({ err: error }, 'publishing preview logs failed; the relay will publish them'))
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  /** Backpressure: resolves once at most `count` publishes are in flight. */
  async below(count: number): Promise<void> {
    while (this.inFlight.size > count) await Promise.race([...this.inFlight]);
  }

  /** Resolves when every publish started so far has ended. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async publishAndForget(batches: OutboxBatch[]): Promise<void> {
    await Promise.all(batches.map((batch) => this.send(batch)));
    await this.dataSource.query(`DELETE FROM preview_log_outbox WHERE id = ANY($1::bigint[])`, [batches.map((b) => b.id)]);
  }

  private async send(batch: OutboxBatch): Promise<void> {
    const js = this.connection.jetstream();
    const subject = this.namespace.subject(batch.subject);
    await Promise.all(batch.messages.map((message, part) => js.publish(subject, message, { msgID: `preview-log:${batch.id}:${part}` })));
  }

  private async relay(): Promise<void> {
    const delayMs = this.config.PREVIEW_LOG_RELAY_DELAY_MS;
    while (this.running) {
      await this.sleep(Math.max(250, Math.floor(delayMs / 2)));
      if (!this.running) break;
      try {
        while (this.running && (await this.relayOnce(delayMs)) > 0);
      } catch (error) {
        this.logger.warn({ err: error }, 'preview-log relay failed; will retry');
      }
    }
  }

  /** Publishes up to 20 stale outbox rows; other replicas skip the rows this one holds. */
  private async relayOnce(delayMs: number): Promise<number> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const rows: { id: string; subject: string; configuration_id: number; seqs: string[] }[] = await runner.query(
        `SELECT id, subject, configuration_id, seqs FROM preview_log_outbox
         WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY id LIMIT 20 FOR UPDATE SKIP LOCKED`,
        [delayMs],
      );
      for (const row of rows) {
        const records: { record: string }[] = await runner.query(
          `SELECT record FROM preview_logs WHERE configuration_id = $1 AND seq = ANY($2::bigint[]) ORDER BY seq`,
          [row.configuration_id, row.seqs],
        );
        await this.send({ id: row.id, subject: row.subject, messages: runsOfTexts(records.map((r) => r.record)) });
        await runner.query(`DELETE FROM preview_log_outbox WHERE id = $1`, [row.id]);
      }
      await runner.commitTransaction();
      if (rows.length) this.logger.log({ batches: rows.length }, 'relayed preview-log batches left unpublished');
      return rows.length;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
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
