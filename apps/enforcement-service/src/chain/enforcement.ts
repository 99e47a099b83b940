import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ChainDecision,
  EnforcementChain,
  EnforcementConfig,
  EnforcementContext,
  ExternalHttpPort,
  LeaseRequest,
  buildChain,
} from '@rollout/domain/enforcement';
import { AdapterSessions } from '../adapters/adapter-sessions';
import { EnforcementConfigSource } from '../enforcement-config';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';

export const EXTERNAL_HTTP = Symbol('EXTERNAL_HTTP');

/**
 * The configured chain, built again when the config is reloaded. Adapter filters are the
 * sessions' own, which hold their check caches. Every decision is counted and every check timed.
 */
@Injectable()
export class Enforcement {
  private readonly logger = new Logger('Leases');
  private built?: { config: EnforcementConfig; chain: EnforcementChain };

  constructor(
    private readonly source: EnforcementConfigSource,
    private readonly metrics: EnforcementMetrics,
    @Inject(EXTERNAL_HTTP) private readonly http: ExternalHttpPort,
    private readonly adapters: AdapterSessions,
  ) {}

  private get chain(): EnforcementChain {
    const config = this.source.current;
    if (this.built?.config !== config)
      this.built = {
        config,
        chain: buildChain(config, {
          http: this.http,
          observer: this.metrics,
          adapterFilter: (adapter) => this.adapters.filterFor(adapter),
        }),
      };
    return this.built.chain;
  }

  /** `liveLeases`: the project's live leases, counted under its lock (MaxActiveLeases). */
  async checkCreate(
    context: EnforcementContext,
    lease: LeaseRequest,
    liveLeases: number,
  ): Promise<ChainDecision> {
    const startedAt = process.hrtime.bigint();
    return this.timed(await this.chain.checkCreate(context, lease, liveLeases), startedAt);
  }

  async checkUpdate(
    context: EnforcementContext,
    before: LeaseRequest,
    after: LeaseRequest,
  ): Promise<ChainDecision> {
    const startedAt = process.hrtime.bigint();
    return this.timed(await this.chain.checkUpdate(context, before, after), startedAt);
  }

  /** An admitted create that could not be written: filters give back what they took. */
  async abortCreate(context: EnforcementContext, lease: LeaseRequest): Promise<ChainDecision> {
    return this.counted(await this.chain.abortCreate(context, lease));
  }

  async onEnd(
    context: EnforcementContext,
    lease: LeaseRequest,
    only?: readonly string[],
  ): Promise<ChainDecision> {
    return this.counted(await this.chain.onEnd(context, lease, only));
  }

  private timed(decision: ChainDecision, startedAt: bigint): ChainDecision {
    this.metrics.chainDuration(decision.hook, Number(process.hrtime.bigint() - startedAt) / 1e9);
    return this.counted(decision);
  }

  private counted(decision: ChainDecision): ChainDecision {
    this.metrics.onDecision(decision);
    return decision;
  }

  /** Filters that follow the lease's life (adapters' reports) hear of a committed create; never throws. */
  async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    try {
      await this.chain.notifyCreated(context, lease);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'created notification failed');
    }
  }

  /** Filters that follow the lease's life (adapters' reports, refunds of a shrink) hear of a committed update; never throws. */
  async notifyUpdated(
    context: EnforcementContext,
    before: LeaseRequest,
    after: LeaseRequest,
  ): Promise<void> {
    try {
      await this.chain.notifyUpdated(context, before, after);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'updated notification failed');
    }
  }
}
