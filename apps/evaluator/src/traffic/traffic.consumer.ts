import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { CONTRACT_HEADERS, TRAFFIC_STREAM } from '@rollout/contracts';
import { METRICS_REGISTRY } from '@rollout/metrics';
import { DEAD_LETTER_REASON_HEADER, NATS_CONNECTION, NatsNamespace, deadLetterSubject } from '@rollout/nats';
import { PolicyView } from '@rollout/preview-domain';
import { ConsumerMessages, JsMsg, NatsConnection, headers as natsHeaders } from 'nats';
import { Counter, Histogram, Registry } from 'prom-client';
import { Config, EVALUATOR_CONFIG } from '../config';
import { TRAFFIC_DURABLE } from '../jetstream';
import { PreviewLogPublisher } from '../preview/preview-log.publisher';
import { EvaluatedRecord, PreviewStore, WriteResult } from '../preview/preview.store';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficClients } from './traffic-clients';
import { DecodedTraffic, RejectKind, TrafficDecoder, isRejected } from './traffic-decoder';

/** How long a partial batch waits for more events while other batches are in flight. */
const LINGER_MS = 20;

interface Rejection {
  message: JsMsg;
  kind: RejectKind;
  reason: string;
}

/**
 * Consumes TRAFFIC with the durable pull consumer every replica shares, once the snapshot of
 * live policies and experiments is loaded. Messages are taken in batches (as many as are
 * waiting, up to EVALUATOR_BATCH_SIZE); each batch is evaluated against the live policy and
 * every ACTIVE experiment, its records and report counters are stored in one transaction, and
 * only then are its messages acknowledged. Up to EVALUATOR_CONCURRENCY batches are in flight.
 *
 * Every traffic major travels on TRAFFIC (`traffic.>`) and this one consumer reads them all:
 * each message is decoded by its subject's major (`traffic.v1`: one event; `traffic.v2alpha`: a
 * batch of events, all or nothing), and an event counts once per experiment configuration
 * whichever major and message carried it. The publisher's `User-Agent` and `Contract-Version`
 * are counted (evaluator_traffic_client_events_total).
 *
 * A malformed message (an unknown major, a Contract-Version of another package, a bad event)
 * goes to `deadletter.v1.traffic` with the reason and is terminated; a
 * failing store is retried (the messages kept alive with "in progress" acks) until it answers
 * again. A crash loses nothing: unacknowledged messages are redelivered, and the store never
 * counts an (experiment version, event) twice.
 */
@Injectable()
export class TrafficConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TrafficConsumer.name);
  private readonly decoder: TrafficDecoder;
  private readonly clients = new TrafficClients();
  private running = false;
  private loop?: Promise<void>;
  private messages?: ConsumerMessages;
  private readonly inFlight = new Set<Promise<void>>();
  private batch: JsMsg[] = [];
  private linger?: NodeJS.Timeout;
  private slotFreed?: () => void;
  private wake?: () => void;
  private readonly metrics?: {
    events: Counter<'outcome'>;
    deadLetters: Counter<'reason'>;
    clientEvents: Counter<'client' | 'contract'>;
    records: Counter<'outcome'>;
    storeFailures: Counter;
    batchSeconds: Histogram;
  };

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    private readonly snapshot: PreviewStateService,
    private readonly store: PreviewStore,
    private readonly publisher: PreviewLogPublisher,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.decoder = new TrafficDecoder(namespace.subject('traffic.'));
    if (registry) {
      const registers = [registry];
      this.metrics = {
        events: new Counter({ name: 'evaluator_traffic_events_total', help: 'Traffic events settled, by outcome (evaluated: events, a traffic.v2alpha batch counting each of its events; dead_lettered: messages).', labelNames: ['outcome'], registers }),
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
        records: new Counter({ name: 'evaluator_preview_records_total', help: 'Preview log records, by outcome (stored; duplicate: already stored, from a redelivery).', labelNames: ['outcome'], registers }),
        storeFailures: new Counter({ name: 'evaluator_store_failures_total', help: 'Batch transactions that failed and were retried.', registers }),
        batchSeconds: new Histogram({
          name: 'evaluator_batch_duration_seconds',
          help: 'Time to evaluate, store and acknowledge one batch of traffic events.',
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers,
        }),
      };
    }
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.messages?.stop();
    this.slotFreed?.();
    await this.loop;
    if (this.batch.length > 0) this.flush();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.publisher.settled();
  }

  private async run(): Promise<void> {
    await Promise.race([this.snapshot.loaded, new Promise<void>((resolve) => (this.wake = resolve))]);
    const stream = this.namespace.stream(TRAFFIC_STREAM);
    while (this.running) {
      try {
        const consumer = await this.connection.jetstream().consumers.get(stream, TRAFFIC_DURABLE);
        const messages = await consumer.consume({ max_messages: this.config.EVALUATOR_BATCH_SIZE * (this.config.EVALUATOR_CONCURRENCY + 1) });
        this.messages = messages;
        if (!this.running) messages.stop();
        this.logger.log(`consuming ${stream} with durable consumer ${TRAFFIC_DURABLE}`);
        await this.drain(messages);
      } catch (error) {
        this.logger.error({ err: error }, 'consuming traffic failed; starting again');
      }
      if (this.running) await this.sleep(1_000);
    }
  }

  /**
   * Batching: a batch is started when it is full; or when no further message is waiting and
   * either nothing else is in flight (an idle evaluator answers at once) or the batch has
   * lingered LINGER_MS (a busy one lets batches grow while the others are being stored).
   */
  private async drain(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      this.batch.push(message);
      if (this.batch.length >= this.config.EVALUATOR_BATCH_SIZE) {
        await this.freeSlot();
        if (this.batch.length > 0) this.flush();
      } else if (messages.getPending() <= 1) {
        // getPending() still counts the message in hand: 1 means nothing else is waiting.
        if (this.inFlight.size === 0) this.flush();
        else this.linger ??= setTimeout(() => this.lingered(), LINGER_MS);
      }
    }
    if (this.batch.length > 0) this.flush();
  }

  private lingered(): void {
    this.linger = undefined;
    if (this.batch.length === 0) return;
    if (this.inFlight.size < this.config.EVALUATOR_CONCURRENCY) this.flush();
    else this.linger = setTimeout(() => this.lingered(), LINGER_MS);
  }

  private flush(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    const batch = this.batch;
    this.batch = [];
    this.start(batch);
  }

  private async freeSlot(): Promise<void> {
    while (this.inFlight.size >= this.config.EVALUATOR_CONCURRENCY && this.running) {
      await new Promise<void>((resolve) => (this.slotFreed = resolve));
    }
  }

  private start(batch: JsMsg[]): void {
    const task = this.process(batch)
      .catch((error) => this.logger.error({ err: error }, 'a traffic batch failed; its events will be redelivered'))
      .finally(() => {
        this.inFlight.delete(task);
        this.slotFreed?.();
        // Nothing else in flight: a lingering partial batch need not wait any longer.
        if (this.inFlight.size === 0 && this.batch.length > 0 && this.running) this.flush();
      });
    this.inFlight.add(task);
  }

  private async process(messages: JsMsg[]): Promise<void> {
    const started = performance.now();
    const items: EvaluatedRecord[] = [];
    const evaluated: JsMsg[] = [];
    const rejected: Rejection[] = [];
    const seen = new Set<string>();
    let evaluatedEvents = 0;
    for (const message of messages) {
      const contractVersion = message.headers?.get(CONTRACT_HEADERS.contractVersion);
      const decoded = this.decoder.decode(message.subject, message.data, contractVersion);
      if (this.metrics) {
        const client = this.clients.labels(message.headers?.get(CONTRACT_HEADERS.userAgent), contractVersion);
        this.metrics.clientEvents.inc(client, isRejected(decoded) ? 1 : decoded.events.length);
      }
      if (isRejected(decoded)) {
        rejected.push({ message, ...decoded });
        continue;
      }
      // Read per message, so a state change applies from the next message on.
      const view = this.snapshot.state.viewForTraffic(decoded.key);
      if (!view) {
        const [project, location, policy] = decoded.key.split('.');
        rejected.push({ message, kind: 'unknown_policy', reason: `no live policy projects/${project}/locations/${location}/firewallPolicies/${policy}` });
        continue;
      }
      // The same event twice in one batch of messages (a republish, or one event sent in
      // either major): evaluate it once, settle every message that carried it.
      const fresh = decoded.events.filter((event) => !seen.has(`${event.key}\n${event.event.id}`));
      if (view.active.length > 0 && fresh.length > 0) {
        try {
          const own = new Set<string>();
          const records: EvaluatedRecord[] = [];
          for (const event of fresh) {
            if (own.has(event.event.id)) continue;
            own.add(event.event.id);
            records.push(...evaluate(event, view, this.store));
          }
          items.push(...records);
        } catch (error) {
          rejected.push({ message, kind: 'unevaluable', reason: `cannot evaluate: ${error instanceof Error ? error.message : String(error)}` });
          continue;
        }
      }
      for (const event of fresh) seen.add(`${event.key}\n${event.event.id}`);
      evaluated.push(message);
      evaluatedEvents += decoded.events.length;
    }
    await Promise.all(rejected.map((rejection) => this.deadLetter(rejection)));
    if (items.length > 0) {
      const result = await this.storeUntilDone(items, evaluated);
      if (!result) {
        // Shutting down with the store unreachable: hand the events back for redelivery.
        for (const message of evaluated) message.nak();
        return;
      }
      this.metrics?.records.inc({ outcome: 'stored' }, result.stored);
      if (result.duplicates) this.metrics?.records.inc({ outcome: 'duplicate' }, result.duplicates);
      for (const message of evaluated) message.ack();
      this.publisher.publish(result.outbox);
      // The stream is slower than the store: hold this slot rather than pile up messages in memory.
      await this.publisher.below(2 * this.config.EVALUATOR_CONCURRENCY);
    } else {
      for (const message of evaluated) message.ack();
    }
    this.metrics?.events.inc({ outcome: 'evaluated' }, evaluatedEvents);
    this.metrics?.batchSeconds.observe((performance.now() - started) / 1000);
  }

  private async storeUntilDone(items: EvaluatedRecord[], messages: JsMsg[]): Promise<WriteResult | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store.write(items);
      } catch (error) {
        this.metrics?.storeFailures.inc();
        if (attempt % 10 === 0) this.logger.warn({ err: error, attempt }, 'storing preview records failed; retrying');
        if (!this.running) return undefined;
        // Keep the events ours while the store is down, rather than have them redelivered.
        for (const message of messages) message.working();
        await this.sleep(Math.min(5_000, 100 * 2 ** attempt));
      }
    }
  }

  private async deadLetter({ message, kind, reason }: Rejection): Promise<void> {
    try {
      const hdrs = natsHeaders();
      // Reasons quote the producer's values: a CR or LF there is not allowed in a header.
      hdrs.set(DEAD_LETTER_REASON_HEADER, headerSafe(reason).slice(0, 1024));
      hdrs.set('Dead-Letter-Subject', message.subject);
      hdrs.set('Dead-Letter-Stream-Sequence', String(message.seq));
      await this.connection.jetstream().publish(this.namespace.subject(deadLetterSubject(TRAFFIC_STREAM)), message.data, {
        headers: hdrs,
        msgID: `${TRAFFIC_STREAM}:${message.seq}`,
      });
      message.term();
      this.metrics?.deadLetters.inc({ reason: kind });
      this.metrics?.events.inc({ outcome: 'dead_lettered' });
      this.logger.warn({ subject: message.subject, seq: message.seq, reason }, 'traffic event dead-lettered');
    } catch (error) {
      // Never lose it: it comes back once the dead-letter stream answers again.
      this.logger.error({ err: error, seq: message.seq }, 'dead-letter publish failed');
      message.nak(1_000);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** One record per ACTIVE experiment; the live policy is evaluated once per event. */
function evaluate(decoded: DecodedTraffic, view: PolicyView, store: PreviewStore): EvaluatedRecord[] {
  const { event, connection, timeMs } = decoded;
  const live = view.live.evaluateParsed(connection);
  const bytes = store.eventBytes(event, live);
  return view.active.map(
    (target): EvaluatedRecord => {
      const experiment = target.policy.evaluateParsed(connection);
      return {
        target,
        trafficEventId: event.id,
        event: bytes,
        changed: live.action !== experiment.action,
        live,
        experiment,
        srcIp: event.srcIp,
        protocol: event.protocol,
        destPort: event.destPort,
        eventTimeMs: timeMs,
      };
    },
  );
}

/** Control characters escaped as \uXXXX, so any text can travel in a NATS header. */
export function headerSafe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
