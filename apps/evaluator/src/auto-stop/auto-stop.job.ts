import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS,
  StatusError,
  requireExperimentName,
  type Clock,
} from '@rollout/contracts';
import { NatsRpcClient } from '@rollout/platform/nats';
import { BackgroundLoop } from '@rollout/platform/runtime';
import { CLOCK } from '@rollout/platform/service-kit';
import { PreviewRunCounts, autoStopReason } from '@rollout/domain/preview';
import { createHash } from 'node:crypto';
import { Config, EVALUATOR_CONFIG } from '../config';
import { PreviewStateService } from '../state/preview-state.service';
import { RunCountsRepository } from './run-counts.repository';

export const AUTO_STOP_ACTOR = 'system:evaluator';
const STOP_TIMEOUT_MS = 10_000;
/** Past the call's timeout, within the 60 s services accept. */
export const AUTO_STOP_ASSERTION_TTL_MS = STOP_TIMEOUT_MS + 10_000;

/**
 * `stopAfter` and `breaker` (experiment.v1 1.4.0). Safe with several replicas: the stop names the
 * etag judged, so a restarted run is never stopped by a stale decision, and its request id derives
 * from it, so replicas asking at once get one PreviewStopped.
 */
@Injectable()
export class AutoStop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AutoStop.name);
  private readonly rounds: BackgroundLoop;
  /** The snapshot may show a stopped experiment ACTIVE a little longer. */
  private readonly stopped = new Map<string, string>();

  constructor(
    private readonly runCounts: RunCountsRepository,
    private readonly snapshot: PreviewStateService,
    private readonly rpc: NatsRpcClient,
    @Inject(EVALUATOR_CONFIG) config: Config,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.rounds = new BackgroundLoop({
      name: AutoStop.name,
      turn: () => this.round(clock.now()),
      intervalMs: config.AUTO_STOP_INTERVAL_MS,
      onFailure: (error) => this.logger.warn({ err: error }, 'auto-stop round failed; will retry'),
    });
  }

  onApplicationBootstrap(): void {
    this.rounds.start(this.snapshot.loaded);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  async round(now: Date): Promise<void> {
    const candidates = this.snapshot.state
      .autoStopping()
      .map((name) => ({ name, held: this.snapshot.state.experimentOf(name) }))
      .filter((c) => c.held && this.stopped.get(c.name) !== c.held.state.etag);
    if (candidates.length === 0) return;
    const rows = await this.runCounts.ofExperiments(candidates.map((c) => c.name));
    for (const { name, held } of candidates) {
      const etag = held!.state.etag;
      const row = rows.find((r) => r.experiment === name && r.experiment_etag === etag);
      const run: PreviewRunCounts = {
        evaluated: Number(row?.evaluated ?? 0),
        allowToDeny: Number(row?.allow_to_deny ?? 0),
      };
      const reason = autoStopReason(held!.state, run, now);
      if (reason) await this.stop(name, etag, reason);
    }
  }

  private async stop(name: string, etag: string, reason: string): Promise<void> {
    const requestId = `auto-stop:${createHash('sha256').update(`${name}@${etag}`).digest('hex').slice(0, 40)}`;
    try {
      const { project } = requireExperimentName(name);
      await this.rpc.request(
        EXPERIMENT_SUBJECTS.stopPreview,
        { name, etag, reason, actor: AUTO_STOP_ACTOR, requestId },
        {
          timeoutMs: STOP_TIMEOUT_MS,
          actor: { actor: AUTO_STOP_ACTOR, roles: ['editor'], projects: [project] },
        },
      );
      this.logger.log({ experiment: name, reason }, 'preview stopped by itself');
    } catch (error) {
      // ABORTED or NOT_FOUND: the experiment moved on since the snapshot showed it.
      if (!(
        error instanceof StatusError &&
        (error.status === 'ABORTED' || error.status === 'NOT_FOUND')
      ))
        throw error;
    }
    this.stopped.set(name, etag);
    for (const known of this.stopped.keys())
      if (!this.snapshot.state.experimentOf(known)) this.stopped.delete(known);
  }
}
