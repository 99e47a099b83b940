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

export interface ServiceParts {
  /** The factory fills it in. */
  module: Type;
  configToken?: symbol;
  imports?: NonNullable<ModuleMetadata['imports']>;
  controllers?: Type[];
  providers?: Provider[];
}

type ServiceInfoOptions =
  { contracts?: undefined } | { service: ServiceName; contracts: ContractPackage[] };

export type ServiceModuleOptions = ServiceParts & PlatformOptions & ServiceInfoOptions;

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
