import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import {
  BacktestOperation,
  BacktestRequest,
  StatusError,
  formatPolicyKey,
  requireExperimentName,
} from '@rollout/contracts';
import { compilePolicy } from '@rollout/domain/firewall';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { PolicyView, backtestView, backtestWindow, requestedWindow } from '@rollout/domain/preview';
import { NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { Config, EVALUATOR_CONFIG } from '../config';
import { PreviewStateService } from '../state/preview-state.service';
import { BacktestReplay, ReplayStopped } from './backtest-replay';
import { BacktestsRepository } from './backtests.repository';

/** A backtest is failed after missing about six heartbeats. */
const BEATS_PER_STALE_PERIOD = 6;
const OPERATION =
  /^operations\/backtest-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * One backtest at a time per process. Backtests never resume: a stopping process fails its own,
 * and a dead one's are failed past BACKTEST_STALE_MS by whichever replica looks first.
 */
@Injectable()
export class Backtests implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(Backtests.name);
  private readonly runner = randomUUID();
  private readonly replay: BacktestReplay;
  private queue: Promise<void> = Promise.resolve();
  private stopping = false;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(NATS_CONNECTION) connection: NatsConnection,
    namespace: NatsNamespace,
    private readonly snapshot: PreviewStateService,
    private readonly store: BacktestsRepository,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {
    this.replay = new BacktestReplay(connection, namespace);
  }

  onApplicationBootstrap(): void {
    const every = Math.max(100, Math.floor(this.config.BACKTEST_STALE_MS / BEATS_PER_STALE_PERIOD));
    this.timer = setInterval(() => {
      this.store
        .housekeep(this.runner, this.config.BACKTEST_STALE_MS, this.config.PREVIEW_RETENTION_MS)
        .catch((error) =>
          this.logger.warn({ error: describe(error) }, 'backtest housekeeping failed'),
        );
    }, every);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.queue;
    await this.store.abandon(this.runner);
  }

  async get(name: unknown): Promise<BacktestOperation> {
    const id = typeof name === 'string' ? OPERATION.exec(name)?.[1] : undefined;
    const operation = id && (await this.store.get(id, this.config.BACKTEST_STALE_MS));
    if (!operation)
      throw StatusError.withReason(
        'NOT_FOUND',
        `Operation "${String(name ?? '').slice(0, 200)}" not found.`,
        'OPERATION_NOT_FOUND',
      );
    return operation;
  }

  async start(request: BacktestRequest): Promise<BacktestOperation> {
    const name = requireExperimentName(request?.name, 'name');
    const window = requestedWindow(request);
    if (!this.snapshot.isLoaded)
      throw StatusError.withReason(
        'UNAVAILABLE',
        'The evaluator is still loading live policies and experiments; try again shortly.',
        'SNAPSHOT_LOADING',
      );
    if (this.stopping)
      throw StatusError.withReason(
        'UNAVAILABLE',
        'This evaluator is stopping; try again.',
        'EVALUATOR_STOPPING',
      );
    const versions = this.snapshot.state.versionsOf(name.name);
    if (!versions) {
      // Committing an experiment deletes it (AIP-236).
      throw StatusError.withReason(
        'NOT_FOUND',
        `Experiment "${name.name}" not found (a committed or deleted experiment has nothing to backtest).`,
        'NOT_FOUND',
        { resource: name.name },
      );
    }
    let view: PolicyView | undefined;
    try {
      view = backtestView(name.name, versions, compilePolicy);
    } catch (error) {
      throw StatusError.withReason(
        'FAILED_PRECONDITION',
        `The experiment or its live policy cannot be evaluated: ${describe(error)}.`,
        'POLICY_NOT_COMPILED',
        { resource: name.name },
      );
    }
    const id = randomUUID();
    const operation = await this.store.create(id, name.name, this.runner);
    const run = async () => {
      try {
        const { tally, outcome } = await this.replay.run(
          view as PolicyView,
          formatPolicyKey(name),
          window,
          {
            batchSize: this.config.BACKTEST_BATCH_SIZE,
            pauseMs: this.config.BACKTEST_PAUSE_MS,
            busyShare: this.config.BACKTEST_BUSY_SHARE,
            // More than this replica's batches in flight hold: the live consumer is behind.
            backlogAbove: this.config.EVALUATOR_BATCH_SIZE * this.config.EVALUATOR_CONCURRENCY,
            maxFlows: this.config.EVALUATOR_MAX_FLOWS,
            onProgress: (messages, events) => this.store.progress(id, messages, events),
            stopping: () => this.stopping,
          },
        );
        await this.store.finish(id, {
          ...tally.report(name.name, versions),
          window: backtestWindow(outcome),
        });
      } catch (error) {
        // Stopping: beforeApplicationShutdown fails it with the others of this process.
        if (error instanceof ReplayStopped) return;
        this.logger.warn({ error: describe(error), backtest: id }, 'backtest failed');
        const status =
          error instanceof StatusError
            ? error
            : StatusError.withReason(
                'UNAVAILABLE',
                `The backtest could not read TRAFFIC or store its result: ${describe(error)}.`,
                'BACKTEST_FAILED',
              );
        await this.store.fail(id, status).catch(() => undefined);
      }
    };
    this.queue = this.queue.then(() => (this.stopping ? undefined : run()));
    return operation;
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
