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
import {
  MESSAGE_ID_HEADER,
  RejectKind,
  RejectedTraffic,
  TrafficDecoder,
  TrafficMessage,
  evaluateBatch,
  isRejected,
} from '@rollout/domain/preview';
import { JsMsg, NatsConnection } from 'nats';
import { Registry } from 'prom-client';
import { Config, EVALUATOR_CONFIG } from '../config';
import { TRAFFIC_DURABLE } from '@rollout/contracts';
import { CountingWindows } from '../counting/counting-windows';
import { PreviewCountsRepository } from '../counting/preview-counts.repository';
import { DeadLetterLog } from '../dead-letters/dead-letter-log';
import { PreviewLogPublisher } from '../preview-logs/preview-log.publisher';
import { PreviewRetention } from '../retention/preview-retention.job';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficClients } from './traffic-clients';
import { TrafficMetrics } from './traffic.metrics';

interface TrafficRejection extends Rejection {
  kind: RejectKind;
}

/**
 * decode → skip what is counted → evaluateBatch → publish → count → acknowledge. A failing store
 * or stream keeps the messages unacknowledged, so they are retried.
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
    private readonly windows: CountingWindows,
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
        maxHeldBytes: config.EVALUATOR_HELD_BYTES,
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
    // Each header read once per message, the client labels and their counter once per batch.
    const clientEvents = this.metrics ? new Map<string, number>() : undefined;
    const decoded = messages.map((message): TrafficMessage<RejectedTraffic> => {
      const headers = message.headers;
      const contractVersion = headers?.get(CONTRACT_HEADERS.contractVersion);
      const result = this.decoder.decode(
        message.subject,
        message.data,
        contractVersion,
        headers?.get(MESSAGE_ID_HEADER) || undefined,
      );
      if (clientEvents) {
        const client = `${headers?.get(CONTRACT_HEADERS.userAgent) ?? ''}\n${contractVersion ?? ''}`;
        const events = isRejected(result) ? 1 : result.events.length;
        clientEvents.set(client, (clientEvents.get(client) ?? 0) + events);
      }
      return { seq: message.seq, redelivered: message.redelivered, decoded: result };
    });
    if (this.metrics && clientEvents)
      for (const [client, events] of clientEvents) {
        const [userAgent, contractVersion] = client.split('\n');
        this.metrics.clientEvents.inc(
          this.clients.labels(userAgent || undefined, contractVersion || undefined),
          events,
        );
      }
    const counted = await this.store.counted(decoded.map((m) => m.seq));
    const state = this.snapshot.state;
    const batch = evaluateBatch(decoded, counted, (key) => state.viewForTraffic(key));
    await this.publisher.publish(batch.logs, batch.countedSeqs);
    await this.windows.count(batch);
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
