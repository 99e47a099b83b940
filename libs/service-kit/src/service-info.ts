import { Controller, DynamicModule, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ContractPackage, ServiceInfo, ServiceName, serviceInfoSubject } from '@rollout/contracts';
// The monorepo ships one version, the root package.json's; tsc copies it into dist/.
// eslint-disable-next-line @nx/enforce-module-boundaries -- not a project import
import { version } from '../../../package.json';

export const BUILD_VERSION: string = version;

/** Answers `system.v1.<service>.info` with the service's name, version and contracts. */
@Module({})
export class ServiceInfoModule {
  static forService(name: ServiceName, contracts: ContractPackage[]): DynamicModule {
    const info: ServiceInfo = { name, version: BUILD_VERSION, contracts };

    @Controller()
    class ServiceInfoController {
      @MessagePattern(serviceInfoSubject(name))
      info(): ServiceInfo {
        return info;
      }
    }

    return { module: ServiceInfoModule, controllers: [ServiceInfoController] };
  }
}
