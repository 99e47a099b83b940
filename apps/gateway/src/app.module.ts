import { DynamicModule, Module } from '@nestjs/common';
import { platformModules } from '@rollout/service-kit';
import { Config, GATEWAY_CONFIG } from './config';
import { BackendClient } from './http/backend-client';
import { ServicesController } from './services/services.controller';
import { ServicesUseCase } from './services/services.use-case';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [...platformModules({ service: 'gateway', config })],
      controllers: [ServicesController],
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }, BackendClient, ServicesUseCase],
    };
  }
}
