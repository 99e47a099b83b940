import {
  DynamicModule,
  Global,
  Module,
  type ModuleMetadata,
  type Provider,
  type Type,
} from '@nestjs/common';
import type { ContractPackage, ServiceName } from '@rollout/contracts';
import { CLOCK, systemClock } from './clock';
import { PlatformOptions, platformModules } from './platform-modules';
import { ServiceInfoModule } from './service-info';

/** What a service's AppModule holds beyond the kit: its own modules, controllers and providers. */
export interface ServiceParts {
  /** The service's AppModule: the factory fills it in. */
  module: Type;
  /** The token the service's validated config is injected by, in every module of the service. */
  configToken?: symbol;
  imports?: NonNullable<ModuleMetadata['imports']>;
  controllers?: Type[];
  providers?: Provider[];
}

/** Backend services name the contracts they serve (answered on `system.v1.<service>.info`). */
type ServiceInfoOptions =
  { contracts?: undefined } | { service: ServiceName; contracts: ContractPackage[] };

export type ServiceModuleOptions = ServiceParts & PlatformOptions & ServiceInfoOptions;

/** The service's config and the clock, global so every module of the service can inject them. */
@Global()
@Module({})
class ServiceContextModule {
  static forService(config: unknown, configToken: symbol | undefined): DynamicModule {
    const tokens = configToken ? [CLOCK, configToken] : [CLOCK];
    const providers: Provider[] = [{ provide: CLOCK, useValue: systemClock }];
    if (configToken) providers.push({ provide: configToken, useValue: config });
    return { module: ServiceContextModule, providers, exports: tokens };
  }
}

/**
 * A service's AppModule, built the one way: the service's own modules, its config (validated by
 * main.ts) and clock, the platform (logs, metrics, NATS, the service's Postgres schema, health),
 * and its `system.v1` info when it names contracts; then its own controllers and providers.
 */
export function serviceModule(options: ServiceModuleOptions): DynamicModule {
  const {
    module,
    configToken,
    imports = [],
    controllers = [],
    providers = [],
    ...platform
  } = options;
  return {
    module,
    imports: [
      ...imports,
      ServiceContextModule.forService(platform.config, configToken),
      ...platformModules(platform),
      ...(options.contracts
        ? [ServiceInfoModule.forService(options.service, options.contracts)]
        : []),
    ],
    controllers,
    providers,
  };
}
