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

/** Built again when the config is reloaded; adapter filters are the sessions' own, which hold their check caches. */
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

  /** `liveLeases` are counted under the project's lock (MaxActiveLeases). */
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

  /** Never throws. */
  async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    try {
      await this.chain.notifyCreated(context, lease);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'created notification failed');
    }
  }

  /** Never throws. */
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
