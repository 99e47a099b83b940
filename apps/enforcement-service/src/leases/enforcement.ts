import { Inject, Injectable } from '@nestjs/common';
import { ActiveLeaseCounter, ChainDecision, EnforcementChain, EnforcementConfig, ExternalHttpPort, buildChain } from '@rollout/enforcement-domain';
import { ENFORCEMENT_CONFIG } from '../enforcement-config';
import { EnforcementMetrics } from './enforcement-metrics';

export const EXTERNAL_HTTP = Symbol('EXTERNAL_HTTP');

const NO_COUNT: ActiveLeaseCounter = {
  countActive: async () => {
    throw new Error('no lease count outside a counting transaction');
  },
};

/**
 * The configured chain. The filters are cheap objects; a chain is put together per decision
 * so that MaxActiveLeases counts inside that decision's transaction (after its project lock).
 */
@Injectable()
export class Enforcement {
  private readonly notifying: EnforcementChain;

  constructor(
    @Inject(ENFORCEMENT_CONFIG) private readonly config: EnforcementConfig,
    private readonly metrics: EnforcementMetrics,
    @Inject(EXTERNAL_HTTP) private readonly http: ExternalHttpPort,
  ) {
    this.notifying = this.chain(NO_COUNT);
  }

  /** The chain with MaxActiveLeases counting through `counter`. */
  chain(counter: ActiveLeaseCounter): EnforcementChain {
    return buildChain(this.config, { activeLeases: counter, http: this.http, observer: this.metrics });
  }

  /** The chain for on_end, which counts nothing. */
  get onEndChain(): EnforcementChain {
    return this.notifying;
  }

  get filterNames(): string[] {
    return this.config.enabledFilters;
  }

  decided(decision: ChainDecision): ChainDecision {
    this.metrics.onDecision(decision);
    return decision;
  }
}
