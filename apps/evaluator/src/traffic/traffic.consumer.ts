import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { CONTRACT_HEADERS, TRAFFIC_STREAM } from '@rollout/contracts';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { BatchConsumer, NATS_CONNECTION, NatsNamespace, Rejection } from '@rollout/platform/nats';
import { TrafficMessage, evaluateBatch } from '@rollout/domain/preview';
import { JsMsg, NatsConnection } from 'nats';
import { Registry } from 'prom-client';
import { Config, EVALUATOR_CONFIG } from '../config';
import { TRAFFIC_DURABLE } from '../jetstream';
import { PreviewCountsRepository } from '../counting/preview-counts.repository';
import { DeadLetterLog } from '../dead-letters/dead-letter-log';
import { PreviewLogPublisher } from '../preview-logs/preview-log.publisher';
import { PreviewRetention } from '../retention/preview-retention.job';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficClients } from './traffic-clients';
import {
  MESSAGE_ID_HEADER,
  RejectKind,
  RejectedTraffic,
  TrafficDecoder,
  isRejected,
} from './traffic-decoder';
import { TrafficMetrics } from './traffic.metrics';

interface TrafficRejection extends Rejection {
  kind: RejectKind;
}

/**
 * The traffic path, in one direction: decode → skip what is counted → evaluate and tally (the
 * preview domain's evaluateBatch) → publish → count → acknowledge. TRAFFIC is read by the durable pull consumer every replica
 * shares, in batches (BatchConsumer: pulling, lingering, concurrency, dead-lettering and
 * acknowledging), once the snapshot of live policies and experiments is loaded and the store's
 * counted sequences are known to belong to this TRAFFIC stream. For each batch:
 *
 * 1. decode every message by its subject's major (`traffic.v1`: one event; `traffic.v2alpha`: a
 *    batch of events, all or nothing); a malformed one is dead-lettered with its reason;
 * 2. skip the messages the store has counted already (a redelivery after a crash);
 * 3. evaluate each event once against the live policy and every ACTIVE experiment, and tally
 *    the batch by outcome, minute and distinct connection (evaluateBatch, a pure function of the
 *    preview domain, on the state in force when each message is reached);
 * 4. publish each policy's log records to PREVIEW_LOGS (the complete log);
 * 5. count the batch in the store, in one transaction, exactly once per message, with the
 *    messages dead-lettered while their policy had ACTIVE experiments and the events that needed
 *    a redelivery (the report's completeness), and every dead letter of a named policy by
 *    project, policy id and reason (preview.v1.deadLetters);
 * 6. the consumer then acknowledges every message that was not dead-lettered.
 *
 * A store or stream that fails is retried with the messages kept ours. The same event twice in
 * one batch (a republish, or one event sent in both majors) is evaluated once; the publisher's
 * `User-Agent` and `Contract-Version` are counted (evaluator_traffic_client_events_total).
 */
@Injectable()
export class TrafficConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly decoder: TrafficDecoder;
  private readonly clients = new TrafficClients();
  private readonly consumer: BatchConsumer;
  private readonly metrics?: TrafficMetrics;
  private readonly deadLetterLog: DeadLetterLog;

  constructor(
    @Inject(NATS_CONNECTION) connection: NatsConnection,
    namespace: NatsNamespace,
    private readonly snapshot: PreviewStateService,
    private readonly store: PreviewCountsRepository,
    private readonly publisher: PreviewLogPublisher,
    private readonly retention: PreviewRetention,
    @Inject(EVALUATOR_CONFIG) config: Config,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.decoder = new TrafficDecoder(namespace.subject('traffic.'));
    if (registry) this.metrics = new TrafficMetrics(registry);
    this.deadLetterLog = new DeadLetterLog(config.EVALUATOR_DEAD_LETTER_LOG_INTERVAL_MS);
    this.consumer = new BatchConsumer(
      connection,
      namespace,
      {
        stream: TRAFFIC_STREAM,
        durable: TRAFFIC_DURABLE,
        maxMessages: config.EVALUATOR_BATCH_SIZE,
        maxBytes: config.EVALUATOR_BATCH_BYTES,
        concurrency: config.EVALUATOR_CONCURRENCY,
        onRetry: () => this.metrics?.storeFailures.inc(),
        onDeadLetter: (rejection) => {
          const kind = (rejection as TrafficRejection).kind;
          this.metrics?.deadLetters.inc({ reason: kind });
          this.metrics?.events.inc({ outcome: 'dead_lettered' });
          this.deadLetterLog.note({
            subject: rejection.message.subject,
            reason: kind,
            detail: rejection.reason,
          });
        },
        // One summary line per interval instead (a flood of bad events is a few lines).
        logEachDeadLetter: false,
      },
      (messages) => this.process(messages),
    );
  }

  onApplicationBootstrap(): void {
    this.consumer.start(
      Promise.all([this.snapshot.loaded, this.retention.ready]).then(() => undefined),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
    this.deadLetterLog.stop();
  }

  private async process(messages: JsMsg[]): Promise<TrafficRejection[]> {
    const started = performance.now();
    const decoded = messages.map((message): TrafficMessage<RejectedTraffic> => {
      const contractVersion = message.headers?.get(CONTRACT_HEADERS.contractVersion);
      const result = this.decoder.decode(
        message.subject,
        message.data,
        contractVersion,
        message.headers?.get(MESSAGE_ID_HEADER) || undefined,
      );
      if (this.metrics) {
        const client = this.clients.labels(
          message.headers?.get(CONTRACT_HEADERS.userAgent),
          contractVersion,
        );
        this.metrics.clientEvents.inc(client, isRejected(result) ? 1 : result.events.length);
      }
      // JsMsg.seq parses the reply subject on every read: read it once.
      return { seq: message.seq, redelivered: message.redelivered, decoded: result };
    });
    const counted = await this.store.counted(decoded.map((m) => m.seq));
    const state = this.snapshot.state;
    const batch = evaluateBatch(decoded, counted, (key) => state.viewForTraffic(key));
    await this.publisher.publish(batch.logs, batch.countedSeqs);
    await this.store.count(batch);
    if (this.metrics) {
      this.metrics.messages.inc({ outcome: 'counted' }, batch.countedMessages);
      if (batch.duplicateMessages)
        this.metrics.messages.inc({ outcome: 'duplicate' }, batch.duplicateMessages);
      this.metrics.events.inc({ outcome: 'evaluated' }, batch.settledEvents);
      this.metrics.batchSeconds.observe((performance.now() - started) / 1000);
    }
    return batch.refused.map(({ index, refusal }) => ({
      message: messages[index],
      kind: refusal.kind as RejectKind,
      reason: refusal.reason,
    }));
  }
}
