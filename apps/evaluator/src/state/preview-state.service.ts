import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { EXPERIMENT_EVENTS_STREAM, EXPERIMENT_EVENTS_SUBJECTS } from '@rollout/contracts';
import type { ReadinessCheck } from '@rollout/health';
import { METRICS_REGISTRY } from '@rollout/metrics';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/nats';
import { DomainEvent, PreviewState } from '@rollout/preview-domain';
import { ConsumerMessages, DeliverPolicy, JsMsg, NatsConnection, NatsError, RetentionPolicy, StorageType, nanos } from 'nats';
import { Counter, Gauge, Registry } from 'prom-client';

const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;

const isStreamNotFound = (error: unknown) =>
  (error instanceof NatsError && error.api_error?.err_code === STREAM_NOT_FOUND) || (error instanceof Error && /stream not found/.test(error.message));

/**
 * The evaluator's snapshot of live policies and ACTIVE experiments, and its readiness check.
 *
 * One ordered consumer on EXPERIMENT_EVENTS does both jobs: it starts with the last event of
 * every subject (DeliverPolicy.LastPerSubject; each event carries its aggregate's full state,
 * so that is the whole snapshot), then follows new events as the experiment service's relay
 * publishes them. The service is ready, and traffic consumption starts, once the events
 * pending at creation have all been applied. The ordered consumer recreates itself from the
 * last applied stream sequence after a NATS reconnect; applying is idempotent by version.
 */
@Injectable()
export class PreviewStateService implements ReadinessCheck, OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly name = 'snapshot';
  readonly state = new PreviewState();
  private readonly logger = new Logger(PreviewStateService.name);
  private loadedAt?: number;
  private markLoaded!: () => void;
  /** Resolves once the snapshot is loaded. */
  readonly loaded = new Promise<void>((resolve) => (this.markLoaded = resolve));
  private running = false;
  private loop?: Promise<void>;
  private messages?: ConsumerMessages;
  private wake?: () => void;
  private readonly applied?: Counter<'outcome'>;
  private readonly gauges?: { ready: Gauge; policies: Gauge; active: Gauge };

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    if (registry) {
      this.applied = new Counter({
        name: 'evaluator_state_events_total',
        help: 'experiment.v1 domain events received, by outcome (applied, ignored: an old version, rejected).',
        labelNames: ['outcome'],
        registers: [registry],
      });
      this.gauges = {
        ready: new Gauge({ name: 'evaluator_snapshot_loaded', help: '1 once the snapshot of live policies and experiments is loaded.', registers: [registry] }),
        policies: new Gauge({ name: 'evaluator_live_policies', help: 'Live policies held.', registers: [registry] }),
        active: new Gauge({ name: 'evaluator_active_experiments', help: 'ACTIVE experiments being previewed.', registers: [registry] }),
      };
    }
  }

  get isLoaded(): boolean {
    return this.loadedAt !== undefined;
  }

  async check(): Promise<void> {
    if (!this.isLoaded) throw new Error(`loading live policies and experiments from ${EXPERIMENT_EVENTS_STREAM}`);
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.messages?.stop();
    await this.loop;
  }

  private async run(): Promise<void> {
    const stream = this.namespace.stream(EXPERIMENT_EVENTS_STREAM);
    while (this.running) {
      try {
        await this.follow(stream);
      } catch (error) {
        this.logger.error({ err: error }, 'following experiment events failed; starting again');
      }
      await this.sleep(1_000);
    }
  }

  private async follow(stream: string): Promise<void> {
    await this.ensureStream(stream);
    const consumer = await this.connection.jetstream().consumers.get(stream, {
      filterSubjects: this.namespace.subject(EXPERIMENT_EVENTS_SUBJECTS),
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    // A short expiry: missed heartbeats (a NATS restart) and failed re-creations retry within seconds.
    const messages = await consumer.consume({ max_messages: 512, expires: 5_000 });
    this.messages = messages;
    if (!this.running) messages.stop();
    const info = await consumer.info(true);
    if (info.num_pending === 0) this.loadedNow();
    for await (const message of messages) {
      this.applyMessage(message);
      if (message.info.pending === 0) this.loadedNow();
    }
  }

  /**
   * The experiment-service owns EXPERIMENT_EVENTS and declares it at its start. If it has never
   * run, no policy exists yet: the evaluator creates the stream as the contract describes it
   * (same subjects, limits retention, 30 days; the owner's declaration then updates its other
   * limits), so that it can follow it from its first event, ready with an empty snapshot.
   * It never changes a stream that exists.
   */
  private async ensureStream(stream: string): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    try {
      await jsm.streams.info(stream);
      return;
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
    try {
      await jsm.streams.add({
        name: stream,
        subjects: [this.namespace.subject(EXPERIMENT_EVENTS_SUBJECTS)],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: nanos(30 * 24 * 3600 * 1000),
      });
      this.logger.warn(`created ${stream}, which did not exist yet (the experiment-service has not run)`);
    } catch (error) {
      // Created meanwhile by the experiment-service (or another replica): fine.
      if (!(error instanceof NatsError && error.api_error?.err_code === STREAM_NAME_IN_USE)) throw error;
    }
  }

  private applyMessage(message: JsMsg): void {
    let event: DomainEvent;
    try {
      event = message.json<DomainEvent>();
    } catch {
      this.applied?.inc({ outcome: 'rejected' });
      this.logger.error({ subject: message.subject, seq: message.seq }, 'experiment event is not JSON; ignored');
      return;
    }
    const result = this.state.apply(event);
    for (const problem of result.problems) this.logger.error({ subject: message.subject }, problem);
    this.applied?.inc({ outcome: result.applied ? 'applied' : 'ignored' });
    if (!result.applied) return;
    const counts = this.state.counts;
    this.gauges?.policies.set(counts.policies);
    this.gauges?.active.set(counts.active);
  }

  private loadedNow(): void {
    if (this.loadedAt !== undefined) return;
    this.loadedAt = Date.now();
    this.gauges?.ready.set(1);
    const counts = this.state.counts;
    this.logger.log({ ...counts }, 'snapshot of live policies and experiments loaded');
    this.markLoaded();
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
