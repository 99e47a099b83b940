import { Controller, DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Ctx, MessagePattern, NatsContext } from '@nestjs/microservices';
import {
  ContractPackage,
  START_TIME_FEATURE,
  ServiceInfo,
  ServiceName,
  contractDefinition,
  contractPackageOf,
  serviceInfoSubject,
} from '@rollout/contracts';
import { ClientMetrics } from '@rollout/platform/metrics';
// The monorepo ships one version; tsc copies package.json into dist/.
// eslint-disable-next-line @nx/enforce-module-boundaries -- not a project import
import { version } from '../../../../package.json';
import { ClientIdentityGuard, declaredFeatures } from './client-identity';

export const BUILD_VERSION: string = version;

/** `startTime` of the system.v1 start-time feature. */
export const PROCESS_START_TIME = new Date(Date.now() - process.uptime() * 1000).toISOString();

export function describeContracts(contracts: readonly ContractPackage[]): ContractPackage[] {
  return contracts.map((contract) => {
    const definition = contractDefinition(contract.name);
    return definition ? contractPackageOf(definition) : contract;
  });
}

/** Also installs ClientIdentityGuard, so every NATS request is counted and an unserved major refused. */
@Module({})
export class ServiceInfoModule {
  static forService(name: ServiceName, contracts: ContractPackage[]): DynamicModule {
    const described = describeContracts(contracts);
    const info: ServiceInfo = { name, version: BUILD_VERSION, contracts: described };

    @Controller()
    class ServiceInfoController {
      @MessagePattern(serviceInfoSubject(name))
      info(@Ctx() context: NatsContext): ServiceInfo {
        return declaredFeatures(context).includes(START_TIME_FEATURE)
          ? { ...info, startTime: PROCESS_START_TIME }
          : info;
      }
    }

    return {
      module: ServiceInfoModule,
      controllers: [ServiceInfoController],
      providers: [
        {
          provide: APP_GUARD,
          useFactory: (metrics: ClientMetrics) => new ClientIdentityGuard(described, metrics),
          inject: [ClientMetrics],
        },
      ],
    };
  }
}
