import { DynamicModule, Module } from '@nestjs/common';
import { actorSignerOf, serviceModule } from '@rollout/platform/service-kit';
import { AuthModule } from './auth/auth.module';
import { BlazarModule } from './blazar/blazar.module';
import { Config, GATEWAY_CONFIG } from './config';
import { DeadLettersModule } from './dead-letters/dead-letters.module';
import { ExperimentsModule } from './experiments/experiments.module';
import { InspectionRulesModule } from './inspection-rules/inspection-rules.module';
import { LeasesModule } from './leases/leases.module';
import { OperationsModule } from './operations/operations.module';
import { PreviewModule } from './preview/preview.module';
import { ServicesModule } from './services/services.module';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'gateway',
      config,
      configToken: GATEWAY_CONFIG,
      actorSigner: actorSignerOf(
        config.BUS_SIGNING_KEY,
        config.BUS_ASSERTION_TTL_MS ?? Math.min(60_000, config.RPC_TIMEOUT_MS + 10_000),
      ),
      imports: [
        AuthModule,
        ServicesModule,
        ExperimentsModule,
        OperationsModule,
        PreviewModule,
        InspectionRulesModule,
        LeasesModule,
        BlazarModule,
        DeadLettersModule,
      ],
    });
  }
}
