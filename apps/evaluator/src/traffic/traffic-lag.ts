import { Inject, Injectable } from '@nestjs/common';
import { PreviewEvaluatorLag, TRAFFIC_STREAM } from '@rollout/contracts';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { NatsConnection } from 'nats';
import { TRAFFIC_DURABLE } from '../jetstream';

/** The evaluators' backlog on TRAFFIC, read from the durable consumer they share. */
@Injectable()
export class TrafficLag {
  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
  ) {}

  /** Undefined when JetStream cannot say (the report then says the backlog is unknown). */
  async read(): Promise<PreviewEvaluatorLag | undefined> {
    try {
      const jsm = await this.connection.jetstreamManager();
      const stream = this.namespace.stream(TRAFFIC_STREAM);
      const consumer = await jsm.consumers.info(stream, TRAFFIC_DURABLE);
      const pendingMessages = consumer.num_pending + consumer.num_ack_pending;
      if (pendingMessages === 0) return { pendingMessages };
      // The first message above the ack floor is the oldest not settled; if TRAFFIC removed it, its first message is.
      const floor = consumer.ack_floor.stream_seq + 1;
      const oldest = await jsm.streams
        .getMessage(stream, { seq: floor })
        .catch(async () => {
          const first = (await jsm.streams.info(stream)).state.first_seq;
          return first > floor ? jsm.streams.getMessage(stream, { seq: first }) : undefined;
        })
        .catch(() => undefined);
      return oldest
        ? { pendingMessages, oldestPendingTime: oldest.time.toISOString() }
        : { pendingMessages };
    } catch {
      return undefined;
    }
  }
}
