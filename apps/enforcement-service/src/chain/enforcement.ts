import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ActiveLeaseCounter,
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

const NO_COUNT: ActiveLeaseCounter = {
  countActive: async () => {
    throw new Error('no lease count outside a counting transaction');
  },
};

/**
 * The configured chain. The filters are cheap objects; a chain is put together per decision
 * so that MaxActiveLeases counts inside that decision's transaction (after its project lock),
 * from the config in force (it may be reloaded). Adapter filters are the sessions' own, which
 * hold their check caches.
 */
@Injectable()
export class Enforcement {
  private readonly logger = new Logger('Leases');
  private notifying?: { config: EnforcementConfig; chain: EnforcementChain };

  constructor(
    private readonly source: EnforcementConfigSource,
    private readonly metrics: EnforcementMetrics,
    @Inject(EXTERNAL_HTTP) private readonly http: ExternalHttpPort,
    private readonly adapters: AdapterSessions,
  ) {}

  /** The chain with MaxActiveLeases counting through `counter`. */
  chain(counter: ActiveLeaseCounter): EnforcementChain {
    return buildChain(this.source.current, {
      activeLeases: counter,
      http: this.http,
      observer: this.metrics,
      adapterFilter: (config) => this.adapters.filterFor(config),
    });
  }

  /** The chain for notifications (on_end, created, updated), which counts nothing. */
  get onEndChain(): EnforcementChain {
    const config = this.source.current;
    if (this.notifying?.config !== config) this.notifying = { config, chain: this.chain(NO_COUNT) };
    return this.notifying.chain;
  }

  get filterNames(): string[] {
    return this.source.current.enabledFilters;
  }

  /** Counts a decision; with `startedAt` (process.hrtime.bigint() before the chain ran), times the chain too. */
  decided(decision: ChainDecision, startedAt?: bigint): ChainDecision {
    if (startedAt !== undefined)
      this.metrics.chainDuration(decision.hook, Number(process.hrtime.bigint() - startedAt) / 1e9);
    this.metrics.onDecision(decision);
    return decision;
  }

  /** Filters that follow the lease's life (adapters' reports) hear of a committed create; never throws. */
  async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    try {
      await this.onEndChain.notifyCreated(context, lease);
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
      await this.onEndChain.notifyUpdated(context, before, after);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'updated notification failed');
    }
  }
}
