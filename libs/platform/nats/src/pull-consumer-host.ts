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

/**
 * Thrown by a handler for a message that will never succeed (bad JSON, unknown reference):
 * it goes to the dead-letter subject at once instead of being redelivered.
 */
export class PoisonMessageError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PoisonMessageError';
  }
}

export interface PullConsumerRegistration {
  /** Stream and durable consumer as declared (un-namespaced). */
  stream: string;
  durable: string;
  /** Must match the durable consumer's `max_deliver`: the last failed try dead-letters. */
  maxDeliver: number;
  batch?: number;
  /** Back-off before a failed message is redelivered. */
  retryDelayMs?: number;
  handle(message: JsMsg): Promise<void>;
}

/**
 * Runs pull-consumer loops: they start after the application has bootstrapped (so handlers
 * find everything wired) and stop before shutdown, letting in-flight messages finish before
 * the connection drains. Explicit ack; failures are retried with a delay up to `maxDeliver`,
 * then go to `deadletter.v1.<stream>` with the reason, as do PoisonMessageErrors at once.
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

  /** Call from a provider's constructor or onModuleInit; loops start at bootstrap. */
  register(registration: PullConsumerRegistration): void {
    if (this.started) throw new Error('register pull consumers before the application bootstraps');
    this.registrations.push(registration);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    const js = this.connection.jetstream();
    for (const registration of this.registrations) {
      // Looked up here, so that a consumer that was never declared fails the start.
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
        // A pull that failed or ended is started again after this pause.
        intervalMs: 1_000,
        interrupt: () => messages?.stop(),
      });
      loop.start();
      this.loops.push(loop);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Stop pulling; the loops end after the messages already handed to them are settled.
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
      // Never lose it: leave it to be redelivered once the dead-letter stream answers again.
      this.logger.error({ err: publishError, seq: message.seq }, 'dead-letter publish failed');
      message.nak(registration.retryDelayMs ?? 1_000);
    }
  }

  private count(registration: PullConsumerRegistration, outcome: string) {
    this.outcomes?.inc({ stream: registration.stream, durable: registration.durable, outcome });
  }
}
