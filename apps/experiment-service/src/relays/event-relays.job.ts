import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { EXPERIMENT_EVENTS_STREAM, EXPERIMENT_STATE_BUCKET } from '@rollout/contracts';
import { EventStore, OutboxRelay, RelaySink } from '@rollout/platform/event-store';
import { KvWriter, NATS_CONNECTION, NatsNamespace, JetStreamSink } from '@rollout/platform/nats';
import { JSONCodec, NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { eventSubject, publishedEvent } from './published-events';
import { StateBucketSink } from './state-bucket.sink';

const codec = JSONCodec();

/** Each relay has its own checkpoint and lock, so one failing never holds the other up. */
@Injectable()
export class EventRelays implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventRelays.name);
  private relays: OutboxRelay[] = [];

  constructor(
    private readonly dataSource: DataSource,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const store = new EventStore(this.dataSource);
    const [js, jsm, ns] = [
      this.connection.jetstream(),
      await this.connection.jetstreamManager(),
      this.namespace,
    ];
    const history = new JetStreamSink(
      js,
      {
        stream: ns.stream(EXPERIMENT_EVENTS_STREAM),
        toMessage: (event) => ({
          subject: ns.subject(eventSubject(event)),
          payload: codec.encode(publishedEvent(event)),
        }),
      },
      jsm,
    );
    const relay = (name: string, sink: RelaySink) =>
      new OutboxRelay(this.dataSource, store, {
        name,
        sink,
        onError: (error) =>
          this.logger.error({ err: error, relay: name }, 'publishing events failed; will retry'),
      });
    this.relays = [
      relay(EXPERIMENT_EVENTS_STREAM, history),
      relay(
        EXPERIMENT_STATE_BUCKET,
        new StateBucketSink(new KvWriter(js, jsm, ns.bucket(EXPERIMENT_STATE_BUCKET))),
      ),
    ];
    for (const each of this.relays) each.start();
  }

  nudge(): void {
    for (const each of this.relays) each.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.relays.map((each) => each.stop()));
  }
}
