import { Inject, Injectable } from '@nestjs/common';
import { PreviewEvaluatorLag, TRAFFIC_STREAM } from '@rollout/contracts';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { NatsConnection } from 'nats';
import { TRAFFIC_DURABLE } from '@rollout/contracts';

/** Only requests the evaluator's NATS user may make (docs/bus-security.md). */
@Injectable()
export class TrafficLag {
  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
  ) {}

  /** Undefined when JetStream cannot say (the report then says the backlog is unknown). */
  async read(): Promise<PreviewEvaluatorLag | undefined> {
    try {
      const jsm = await this.connection.jetstreamManager({ checkAPI: false });
      const stream = this.namespace.stream(TRAFFIC_STREAM);
      const consumer = await jsm.consumers.info(stream, TRAFFIC_DURABLE);
      const pendingMessages = consumer.num_pending + consumer.num_ack_pending;
      if (pendingMessages === 0) return { pendingMessages };
      // The first message above the ack floor is the oldest not settled; if TRAFFIC removed it,
      // its first message is, whose time the stream's info gives.
      const floor = consumer.ack_floor.stream_seq + 1;
      const oldest = await jsm.streams
        .getMessage(stream, { seq: floor })
        .then((message) => message.time)
        .catch(async () => {
          const { first_seq, first_ts } = (await jsm.streams.info(stream)).state;
          return first_seq > floor ? new Date(first_ts) : undefined;
        })
        .catch(() => undefined);
      return oldest && !Number.isNaN(oldest.getTime())
        ? { pendingMessages, oldestPendingTime: oldest.toISOString() }
        : { pendingMessages };
    } catch {
      return undefined;
    }
  }
}
