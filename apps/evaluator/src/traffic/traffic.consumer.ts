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
import { Evaluation, evaluate } from '@rollout/domain/preview';
import { JsMsg, NatsConnection } from 'nats';
import { Counter, Histogram, Registry } from 'prom-client';
import { Config, EVALUATOR_CONFIG } from '../config';
import { TRAFFIC_DURABLE } from '../jetstream';
import {
  EvaluatedMessage,
  LostMessage,
  PreviewCountsRepository,
} from '../counting/preview-counts.repository';
import { PreviewLogPublisher } from '../preview-logs/preview-log.publisher';
import { PreviewRetention } from '../retention/preview-retention';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficClients } from './traffic-clients';
import { RejectKind, TrafficDecoder, isRejected } from './traffic-decoder';

interface TrafficRejection extends Rejection {
  kind: RejectKind;
}

/**
 * The traffic path, in one direction: decode → skip what is counted → evaluate → aggregate →
 * publish → count → acknowledge. TRAFFIC is read by the durable pull consumer every replica
 * shares, in batches (BatchConsumer: pulling, lingering, concurrency, dead-lettering and
 * acknowledging), once the snapshot of live policies and experiments is loaded and the store's
 * counted sequences are known to belong to this TRAFFIC stream. For each batch:
 *
 * 1. decode every message by its subject's major (`traffic.v1`: one event; `traffic.v2alpha`: a
 *    batch of events, all or nothing); a malformed one is dead-lettered with its reason;
 * 2. skip the messages the store has counted already (a redelivery after a crash);
 * 3. evaluate each event against the live policy and every ACTIVE experiment (a pure function of
 *    the preview domain, on the state in force when its message is reached);
 * 4. publish the per-event records to PREVIEW_LOGS (the complete log);
 * 5. count the batch in the store, in one transaction, exactly once per message (aggregated by
 *    configuration and flow on the way in), with the messages dead-lettered while their policy
 *    had ACTIVE experiments and the events that needed a redelivery (the report's completeness);
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
  private readonly metrics?: {
    events: Counter<'outcome'>;
    deadLetters: Counter<'reason'>;
    clientEvents: Counter<'client' | 'contract'>;
    messages: Counter<'outcome'>;
    storeFailures: Counter;
    batchSeconds: Histogram;
  };

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
    if (registry) {
      const registers = [registry];
      this.metrics = {
        events: new Counter({
          name: 'evaluator_traffic_events_total',
          help: 'Traffic events settled, by outcome (evaluated: events, a traffic.v2alpha batch counting each of its events; dead_lettered: messages).',
          labelNames: ['outcome'],
          registers,
        }),
        deadLetters: new Counter({
          name: 'evaluator_dead_letters_total',
          help: 'Traffic messages sent to deadletter.v1.traffic, by reason (bad_subject, unknown_major, contract_mismatch, bad_json, invalid_event, bad_address, unknown_policy, unevaluable).',
          labelNames: ['reason'],
          registers,
        }),
        clientEvents: new Counter({
          name: 'evaluator_traffic_client_events_total',
          help: 'Traffic events received, by publishing client (User-Agent product name; unknown when absent or malformed, other past the first 100 names) and contract (the traffic package its Contract-Version declares; unknown when absent, malformed or not one this evaluator reads).',
          labelNames: ['client', 'contract'],
          registers,
        }),
        messages: new Counter({
          name: 'evaluator_counted_messages_total',
          help: 'Traffic messages with ACTIVE experiments, by outcome (counted; duplicate: counted before, by a delivery that crashed or by another replica).',
          labelNames: ['outcome'],
          registers,
        }),
        storeFailures: new Counter({
          name: 'evaluator_store_failures_total',
          help: 'Batches that failed to publish or store and were retried.',
          registers,
        }),
        batchSeconds: new Histogram({
          name: 'evaluator_batch_duration_seconds',
          help: 'Time to evaluate, publish and store one batch of traffic messages.',
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers,
        }),
      };
    }
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
          this.metrics?.deadLetters.inc({ reason: (rejection as TrafficRejection).kind });
          this.metrics?.events.inc({ outcome: 'dead_lettered' });
        },
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
  }

  private async process(messages: JsMsg[]): Promise<TrafficRejection[]> {
    const started = performance.now();
    const rejected: TrafficRejection[] = [];
    // JsMsg.seq parses the reply subject on every read: read it once.
    const decoded = messages.map((message) => {
      const seq = message.seq;
      const contractVersion = message.headers?.get(CONTRACT_HEADERS.contractVersion);
      const result = this.decoder.decode(message.subject, message.data, contractVersion);
      if (this.metrics) {
        const client = this.clients.labels(
          message.headers?.get(CONTRACT_HEADERS.userAgent),
          contractVersion,
        );
        this.metrics.clientEvents.inc(client, isRejected(result) ? 1 : result.events.length);
      }
      if (isRejected(result)) rejected.push({ message, ...result });
      return { message, seq, result };
    });
    const counted = await this.store.counted(decoded.map((d) => d.seq));

    const evaluated: EvaluatedMessage[] = [];
    /** Dead-lettered messages whose policy has ACTIVE experiments: their reports say what they miss. */
    const lost: LostMessage[] = [];
    const lose = (seq: number, key: string | undefined, kind: RejectKind) => {
      const targets =
        key === undefined || counted.has(seq)
          ? undefined
          : this.snapshot.state.viewForTraffic(key)?.active;
      if (targets?.length) lost.push({ seq, reason: kind, targets });
    };
    for (const { seq, result } of decoded)
      if (isRejected(result)) lose(seq, result.key, result.kind);
    /** Event ids evaluated in this batch, by traffic key. */
    const seen = new Map<string, Set<string>>();
    let events = 0;
    for (const { message, seq, result } of decoded) {
      if (isRejected(result)) continue;
      events += result.events.length;
      if (counted.has(seq)) continue;
      // Read per message, so a state change applies from the next message on.
      const view = this.snapshot.state.viewForTraffic(result.key);
      if (!view) {
        const [project, location, policy] = result.key.split('.');
        rejected.push({
          message,
          kind: 'unknown_policy',
          reason: `no live policy projects/${project}/locations/${location}/firewallPolicies/${policy}`,
        });
        events -= result.events.length;
        continue;
      }
      if (view.active.length === 0) continue;
      try {
        let ids = seen.get(result.key);
        if (!ids) seen.set(result.key, (ids = new Set()));
        const evaluations: Evaluation[] = [];
        for (const traffic of result.events) {
          if (ids.has(traffic.event.id)) continue;
          ids.add(traffic.event.id);
          evaluations.push(evaluate(view, traffic));
        }
        evaluated.push({ seq, evaluations, redelivered: message.redelivered });
      } catch (error) {
        rejected.push({
          message,
          kind: 'unevaluable',
          reason: `cannot evaluate: ${error instanceof Error ? error.message : String(error)}`,
        });
        lose(seq, result.key, 'unevaluable');
        events -= result.events.length;
      }
    }

    if (evaluated.length > 0) {
      await this.publisher.publish(
        evaluated.flatMap((m) => m.evaluations),
        evaluated.map((m) => m.seq),
      );
    }
    if (evaluated.length > 0 || lost.length > 0) {
      await this.store.count(evaluated, lost);
      this.metrics?.messages.inc({ outcome: 'counted' }, evaluated.length);
    }
    if (counted.size) this.metrics?.messages.inc({ outcome: 'duplicate' }, counted.size);
    this.metrics?.events.inc({ outcome: 'evaluated' }, events);
    this.metrics?.batchSeconds.observe((performance.now() - started) / 1000);
    return rejected;
  }
}
