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
 * Keeps the preview store bounded, on every replica. Counted sequences at or below the durable
 * consumer's ack floor are settled for good (JetStream never delivers them again), so they merge
 * into one range and `preview_counted` stays a few rows; at start the ranges are checked against
 * the TRAFFIC stream as it is now (one created again starts its sequences over), before any
 * traffic is consumed. A configuration whose last traffic is older than PREVIEW_RETENTION_MS goes
 * with its flows and rule counts, as do older dead-letter rows, at most 5,000 rows per DELETE.
 * Drops: see observeDrops.
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

  /** One round: merge counted ranges, note what TRAFFIC dropped, roll time buckets up, remove expired configurations. Exposed for tests. */
  async housekeeping(): Promise<void> {
    await this.repository.compact((await this.consumerInfo()).ack_floor.stream_seq);
    await this.observeDrops();
    await this.repository.rollUp(this.config.PREVIEW_RETENTION_MS);
    await this.expire();
  }

  /**
   * TRAFFIC removes its oldest messages past its limits, read or not. With S the ack floor at the
   * last observation (kept in Postgres, whichever replica made it) and D the delivered sequence
   * now, a removed message above D was dropped unread for sure; one between S and D may have been
   * read (undetermined). Each sequence is recorded once (`through_seq`). Observations run at
   * start before the consumer, at every round and at shutdown, so what went while every evaluator
   * was stopped is found for sure. A drop is the stream's, never a policy's: its subject is gone.
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

  /** Removes the configurations past retention, one at a time while the rounds run. */
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
