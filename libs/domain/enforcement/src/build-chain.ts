import { ConfiguredFilter, EnforcementChain, ScheduleTimeout } from './chain';
import type { ChainObserver } from './chain-decision';
import { EnforcementConfig, FilterName } from './config';
import { ExternalHttpPort, ExternalServiceFilter } from './external-service';
import { MaxActiveLeasesFilter, MaxLeaseDurationFilter, MaxReservationSizeFilter } from './filters';
import { AdapterFilterConfig } from './adapters/config';
import { EnforcementFilter } from './model';

export interface ChainPorts {
  http: ExternalHttpPort;
  /** Required when the config enables an adapter filter. */
  adapterFilter?: (config: AdapterFilterConfig) => EnforcementFilter;
  observer?: ChainObserver;
  schedule?: ScheduleTimeout;
}

export function buildChain(config: EnforcementConfig, ports: ChainPorts): EnforcementChain {
  const filters: ConfiguredFilter[] = config.enabledFilters.map((name): ConfiguredFilter => {
    const adapter = config.adapters[name];
    if (!adapter)
      return {
        filter: makeFilter(name as FilterName, config, ports),
        mode: config.modes[name as FilterName],
      };
    if (!ports.adapterFilter)
      throw new Error(`the chain enables adapter filter ${name} but no adapter port was given`);
    return {
      filter: ports.adapterFilter(adapter),
      mode: adapter.mode,
      timeoutMs: adapter.timeoutMs,
      failurePolicy: adapter.failurePolicy,
    };
  });
  return new EnforcementChain(filters, config.exemptedProjects, {
    observer: ports.observer,
    schedule: ports.schedule,
  });
}

function makeFilter(name: FilterName, config: EnforcementConfig, ports: ChainPorts) {
  switch (name) {
    case 'MaxLeaseDuration':
      return new MaxLeaseDurationFilter(config.maxLeaseDuration);
    case 'MaxActiveLeases':
      return new MaxActiveLeasesFilter(
        config.maxActiveLeases.limit,
        config.maxActiveLeases.projectOverrides,
      );
    case 'MaxReservationSize':
      return new MaxReservationSizeFilter(
        config.maxReservationSize.limits,
        config.maxReservationSize.projectOverrides,
      );
    case 'ExternalService':
      // parseEnforcementConfig guarantees the settings exist when the filter is enabled.
      return new ExternalServiceFilter(config.externalService!, ports.http);
  }
}
