import { DynamicModule, Module } from '@nestjs/common';
import { SYSTEM_V1 } from '@rollout/contracts';
import { ServiceInfoModule, platformModules } from '@rollout/service-kit';
import type { Config } from './config';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...platformModules({ service: 'enforcement-service', config, database: { migrations: [] } }),
        ServiceInfoModule.forService('enforcement-service', [SYSTEM_V1]),
      ],
    };
  }
}
