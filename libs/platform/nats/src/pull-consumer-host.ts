import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { BackgroundLoop } from '@rollout/platform/runtime';
import { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import { Counter, Registry } from 'prom-client';
import { publishDeadLetter } from './dead-letter';
import { NatsNamespace } from './namespace';
import { NATS_CONNECTION } from './tokens';

/** For a message that will never succeed: dead-lettered at once instead of redelivered. */
export class PoisonMessageError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PoisonMessageError';
  }
}

export interface PullConsumerRegistration {
  stream: string;
  durable: string;
  /** Must match the durable's `max_deliver`: the last failed try dead-letters. */
  maxDeliver: number;
  batch?: number;
  retryDelayMs?: number;
  handle(message: JsMsg): Promise<void>;
}

/**
 * Loops start after bootstrap (so handlers find everything wired) and stop before the
 * connection drains. Failures are retried up to `maxDeliver`, then dead-lettered.
 */
@Injectable()
export class PullConsumerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PullConsumerHost.name);
  private readonly registrations: PullConsumerRegistration[] = [];
  private readonly loops: BackgroundLoop[] = [];
  private readonly outcomes?: Counter<'stream' | 'durable' | 'outcome'>;
  private started = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    if (registry) {
      this.outcomes = new Counter({
        name: 'jetstream_messages_total',
        help: 'Messages consumed, by stream, durable and outcome (acked, retried, dead_lettered).',
        labelNames: ['stream', 'durable', 'outcome'],
        registers: [registry],
      });
    }
  }

  /** Loops start at bootstrap. */
  register(registration: PullConsumerRegistration): void {
    if (this.started) throw new Error('register pull consumers before the application bootstraps');
    this.registrations.push(registration);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    const js = this.connection.jetstream();
    for (const registration of this.registrations) {
      // Here, so a consumer never declared fails the start.
      const consumer = await js.consumers.get(
        this.namespace.stream(registration.stream),
        registration.durable,
      );
      let messages: ConsumerMessages | undefined;
      const loop = new BackgroundLoop({
        name: `${PullConsumerHost.name} ${registration.stream}/${registration.durable}`,
        turn: async () => {
          messages = await consumer.consume({ max_messages: registration.batch ?? 64 });
          if (!loop.isRunning) messages.stop();
          await this.handleAll(registration, messages);
        },
        intervalMs: 1_000,
        interrupt: () => messages?.stop(),
      });
      loop.start();
      this.loops.push(loop);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.loops.map((loop) => loop.stop()));
    this.loops.length = 0;
  }

  private async handleAll(registration: PullConsumerRegistration, messages: ConsumerMessages) {
    for await (const message of messages) {
      try {
        await registration.handle(message);
        message.ack();
        this.count(registration, 'acked');
      } catch (error) {
        await this.fail(registration, message, error);
      }
    }
  }

  private async fail(registration: PullConsumerRegistration, message: JsMsg, error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    const lastTry = message.info.deliveryCount >= registration.maxDeliver;
    if (!(error instanceof PoisonMessageError) && !lastTry) {
      this.logger.warn(
        { err: error, subject: message.subject, seq: message.seq },
        'message failed; will retry',
      );
      message.nak(registration.retryDelayMs ?? 1_000);
      this.count(registration, 'retried');
      return;
    }
    try {
      await publishDeadLetter(
        this.connection,
        this.namespace,
        registration.stream,
        message,
        reason,
      );
      message.term();
      this.count(registration, 'dead_lettered');
      this.logger.warn(
        { subject: message.subject, seq: message.seq, reason },
        'message dead-lettered',
      );
    } catch (publishError) {
      // Left to be redelivered once the dead-letter stream answers.
      this.logger.error({ err: publishError, seq: message.seq }, 'dead-letter publish failed');
      message.nak(registration.retryDelayMs ?? 1_000);
    }
  }

  private count(registration: PullConsumerRegistration, outcome: string) {
    this.outcomes?.inc({ stream: registration.stream, durable: registration.durable, outcome });
  }
}
