import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { TRAFFIC_STREAM, type Clock } from '@rollout/contracts';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { ConsumerInfo, NatsConnection } from 'nats';
import { Config, EVALUATOR_CONFIG } from '../config';
import { PreviewCountsRepository } from '../counting/preview-counts.repository';
import { DeadLettersRepository } from '../dead-letters/dead-letters.repository';
import { TRAFFIC_DURABLE } from '@rollout/contracts';
import { RetentionRepository } from './retention.repository';

/**
 * Keeps the preview store bounded. Sequences at or below the ack floor are never delivered again,
 * so they merge into one range; before any traffic the ranges are checked against the TRAFFIC
 * stream, since one created again starts its sequences over.
 */
@Injectable()
export class PreviewRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PreviewRetention.name);
  private markReady!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));
  private readonly adoption: BackgroundLoop;
  private readonly housekeepingRounds: BackgroundLoop;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    private readonly repository: RetentionRepository,
    private readonly counts: PreviewCountsRepository,
    private readonly deadLetters: DeadLettersRepository,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.adoption = new BackgroundLoop({
      name: PreviewRetention.name,
      turn: async () => {
        await this.adoptStream();
        await this.observeDrops();
        this.markReady();
        return 'done';
      },
      intervalMs: 1_000,
      onFailure: (error) =>
        this.logger.warn(
          { err: error },
          'checking the TRAFFIC stream against the counted sequences failed; retrying',
        ),
    });
    this.housekeepingRounds = new BackgroundLoop({
      name: PreviewRetention.name,
      turn: () => this.housekeeping(),
      intervalMs: config.PREVIEW_HOUSEKEEPING_INTERVAL_MS,
      firstTurnAfterInterval: true,
      onFailure: (error) =>
        this.logger.warn({ err: error }, 'preview housekeeping failed; will retry'),
      // What this replica read is on record, so drops while every evaluator is stopped are certain.
      drain: () =>
        this.observeDrops().catch((error: unknown) =>
          this.logger.warn({ err: error }, 'observing TRAFFIC drops at shutdown failed'),
        ),
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

  /** Exposed for tests. */
  async housekeeping(): Promise<void> {
    await this.repository.compact((await this.consumerInfo()).ack_floor.stream_seq);
    await this.observeDrops();
    await this.repository.rollUp(this.config.PREVIEW_RETENTION_MS);
    await this.expire();
  }

  /**
   * With S the last observed ack floor and D the delivered sequence now, a removed message above D
   * was dropped unread for sure; one between S and D may have been read. Observing at start and at
   * shutdown catches what went while every evaluator was stopped. A dropped subject is gone, so a
   * drop is the stream's, never a policy's.
   */
  private async observeDrops(): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    const consumer = await this.consumerInfo();
    const removedThrough =
      (await jsm.streams.info(this.namespace.stream(TRAFFIC_STREAM))).state.first_seq - 1;
    await this.repository.recordDrops(
      { ackFloor: consumer.ack_floor.stream_seq, delivered: consumer.delivered.stream_seq },
      removedThrough,
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
    const replaced = await this.repository.adoptStream(created, floor);
    if (replaced)
      this.logger.warn(
        { was: replaced, now: created },
        'TRAFFIC was created again: its sequences start over, so the counted ranges of the old stream are dropped',
      );
  }

  private async expire(): Promise<void> {
    const cutoff = new Date(
      this.clock.now().getTime() - this.config.PREVIEW_RETENTION_MS,
    ).toISOString();
    const expired = await this.repository.expiredConfigurations(cutoff);
    for (const id of expired) {
      if (!this.housekeepingRounds.isRunning) return;
      await this.repository.removeConfiguration(id, cutoff);
    }
    await this.repository.removeOldDrops(cutoff);
    await this.deadLetters.removeBefore(cutoff);
    if (expired.length > 0) {
      this.counts.forget(expired);
      this.logger.log(
        { configurations: expired.length },
        'removed preview configurations past retention',
      );
    }
  }
}
