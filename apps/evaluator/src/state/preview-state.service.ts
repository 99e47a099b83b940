import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import {
  type Clock,
  EXPERIMENT_STATE_BUCKET,
  STATE_POSITION_KEY,
  STATE_START,
  STATE_VERSION_HEADER,
  StatePosition,
  isAtOrAfter,
  parseStatePosition,
  resourceOfStateKey,
} from '@rollout/contracts';
import type { ReadinessCheck } from '@rollout/platform/health';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import {
  KvEntry,
  KvFollower,
  NATS_CONNECTION,
  NatsNamespace,
  isKvDeletion,
} from '@rollout/platform/nats';
import { BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { ApplyResult, DomainEvent, PreviewState } from '@rollout/domain/preview';
import { NatsConnection, NatsError, Subscription } from 'nats';
import { Registry } from 'prom-client';
import { PreviewAppliedRepository } from './preview-applied.repository';
import { StateMetrics } from './state.metrics';

const STREAM_NOT_FOUND = 10059;

const isStreamNotFound = (error: unknown) =>
  (error instanceof NatsError && error.api_error?.err_code === STREAM_NOT_FOUND) ||
  (error instanceof Error && /stream not found/.test(error.message));

/**
 * The snapshot of live policies and ACTIVE experiments. It follows EXPERIMENT_STATE by direct
 * gets in sequence order, without a consumer (its NATS user may create none, docs/bus-security.md);
 * history 1 and full-state values make the bucket the whole snapshot. Writes only wake the reader,
 * which also polls every second, so a notice lost in a reconnect loses no entry. Traffic waits for
 * the position key and every entry present at start, so it never meets a half-filled snapshot.
 */
@Injectable()
export class PreviewStateService
  implements ReadinessCheck, OnApplicationBootstrap, BeforeApplicationShutdown
{
  readonly name = 'snapshot';
  readonly state = new PreviewState();
  private readonly logger = new Logger(PreviewStateService.name);
  private loadedAt?: number;
  /** The bucket's position key was seen: the bucket has been filled. */
  private filled = false;
  private markLoaded!: () => void;
  readonly loaded = new Promise<void>((resolve) => (this.markLoaded = resolve));
  private readonly following: BackgroundLoop;
  /** The bucket is missing: said once, not every second. */
  private waitingForBucket = false;
  private appliedSeq = 0;
  /**
   * The stream's last sequence (from its leader) when first found: a direct get may be answered
   * by a lagging replica, so "nothing more" alone does not say the snapshot is complete.
   */
  private snapshotSeq?: number;
  private recheckStream = true;
  private writes?: Subscription;
  /** The greatest `Event-Tx`/`Event-Position` applied (the relay writes in log order). */
  private reached: StatePosition = STATE_START;
  private readonly waiting = new Set<{ position: StatePosition; done: () => void }>();
  private readonly bucket: KvFollower;
  private readonly metrics?: StateMetrics;

  constructor(
    @Inject(NATS_CONNECTION) connection: NatsConnection,
    namespace: NatsNamespace,
    private readonly appliedTimes: PreviewAppliedRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.following = new BackgroundLoop({
      name: PreviewStateService.name,
      turn: () => this.follow(),
      intervalMs: 1_000,
      onFailure: (error) => this.followFailed(error),
    });
    this.bucket = new KvFollower(connection, namespace.bucket(EXPERIMENT_STATE_BUCKET));
    if (registry) this.metrics = new StateMetrics(registry);
  }

  get position(): StatePosition {
    return this.reached;
  }

  /** False after `timeoutMs` if `position` is not applied by then (docs/api.md, "Read your own writes"). */
  appliedThrough(position: StatePosition, timeoutMs: number): Promise<boolean> {
    if (isAtOrAfter(this.reached, position)) return Promise.resolve(true);
    // The write it waits for may have landed before its notice: look now rather than in a second.
    this.following.wake();
    return new Promise((resolve) => {
      const waiter = {
        position,
        done: () => {
          clearTimeout(timer);
          this.waiting.delete(waiter);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiting.add(waiter);
    });
  }

  get isLoaded(): boolean {
    return this.loadedAt !== undefined;
  }

  async check(): Promise<void> {
    if (this.isLoaded) return;
    throw new Error(
      this.filled
        ? `loading live policies and experiments from ${EXPERIMENT_STATE_BUCKET}`
        : `waiting for the experiment-service to fill ${EXPERIMENT_STATE_BUCKET}`,
    );
  }

  onApplicationBootstrap(): void {
    // Only a nudge: what was written is read back by sequence.
    this.writes = this.bucket.onWrite(() => this.following.wake());
    this.following.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.writes?.unsubscribe();
    await this.following.stop();
    this.appliedTimes.stop();
  }

  private followFailed(error: unknown): void {
    // Look at the bucket's stream again before reading on: it may have been made again.
    this.recheckStream = true;
    const bucketMissing = isStreamNotFound(error);
    if (!bucketMissing)
      this.logger.error({ err: error }, 'following the state bucket failed; starting again');
    else if (!this.waitingForBucket)
      this.logger.warn(
        `${EXPERIMENT_STATE_BUCKET} does not exist yet: waiting for the experiment-service to create it`,
      );
    this.waitingForBucket = bucketMissing;
  }

  private async follow(): Promise<void> {
    if (this.recheckStream) {
      const lastRevision = await this.bucket.lastRevision();
      // A bucket made again (lost with its data) numbers from 1: read it from its start.
      if (lastRevision < this.appliedSeq) {
        this.appliedSeq = 0;
        this.reached = STATE_START;
      }
      this.snapshotSeq ??= lastRevision;
      this.recheckStream = false;
    }
    for (;;) {
      if (!this.following.isRunning) return;
      const entry = await this.bucket.next(this.appliedSeq);
      if (!entry) break;
      this.applyEntry(entry);
      this.appliedSeq = entry.revision;
      this.advance(entry);
    }
    if (this.filled && this.appliedSeq >= (this.snapshotSeq ?? 0)) this.loadedNow();
  }

  private advance(entry: KvEntry): void {
    const at = parseStatePosition(
      `${entry.headers?.get('Event-Tx') ?? ''}.${entry.headers?.get('Event-Position') ?? ''}`,
    );
    if (!at || isAtOrAfter(this.reached, at)) return;
    this.reached = at;
    for (const waiter of this.waiting) if (isAtOrAfter(at, waiter.position)) waiter.done();
  }

  private applyEntry(entry: KvEntry): void {
    const { key } = entry;
    if (key === STATE_POSITION_KEY) {
      this.filled = true;
      return;
    }
    const resource = resourceOfStateKey(key);
    let result: ApplyResult;
    if (!resource) {
      result = {
        applied: false,
        problems: [`unknown key ${key.slice(0, 200)} in ${EXPERIMENT_STATE_BUCKET}; ignored`],
      };
    } else if (isKvDeletion(entry.operation)) {
      // A key deleted by hand (`nats kv del`) has no version: it is gone whatever was held.
      const version = entry.headers?.get(STATE_VERSION_HEADER) || undefined;
      result = this.state.applyDeletion(
        resource.kind,
        resource.name,
        version === undefined ? undefined : Number(version),
      );
    } else {
      try {
        result = this.state.apply(JSON.parse(new TextDecoder().decode(entry.value)) as DomainEvent);
      } catch {
        result = {
          applied: false,
          problems: [`the value of ${key.slice(0, 200)} is not JSON; ignored`],
        };
      }
    }
    for (const problem of result.problems)
      this.logger.error({ key: key.slice(0, 200), seq: entry.revision }, problem);
    this.metrics?.applied.inc({
      outcome: result.applied ? 'applied' : result.problems.length ? 'rejected' : 'ignored',
    });
    if (!result.applied) return;
    if (resource?.kind === 'experiment') this.noteIfActive(resource.name);
    const counts = this.state.counts;
    this.metrics?.policies.set(counts.policies);
    this.metrics?.active.set(counts.active);
  }

  private noteIfActive(experiment: string): void {
    const preview = this.state.experimentOf(experiment)?.state.previewMetadata;
    if (preview?.state === 'ACTIVE')
      this.appliedTimes.note(experiment, preview.startTime ?? '', this.clock.now());
  }

  private loadedNow(): void {
    if (this.loadedAt !== undefined) return;
    this.loadedAt = this.clock.now().getTime();
    this.metrics?.ready.set(1);
    const counts = this.state.counts;
    this.logger.log({ ...counts }, 'snapshot of live policies and experiments loaded');
    this.markLoaded();
  }
}
