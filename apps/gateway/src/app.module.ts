import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { actorSigningOf, serviceModule } from '@rollout/platform/service-kit';
import { AuthGuard } from './auth/auth.guard';
import { Authenticator } from './auth/authenticator';
import { PrincipalController } from './auth/principal.controller';
import { ProjectsController } from './auth/projects.controller';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { Config, GATEWAY_CONFIG } from './config';
import { ExperimentsController } from './experiments/experiments.controller';
import { PoliciesController } from './experiments/policies.controller';
import { ExperimentsClient } from './experiments/experiments.client';
import { PolicyRevisionsController } from './experiments/policy-revisions.controller';
import { PolicyRevisionsClient } from './experiments/policy-revisions.client';
import { OperationsController } from './operations/operations.controller';
import { BacktestController } from './preview/backtest.controller';
import { PreviewController } from './preview/preview.controller';
import { PreviewClient } from './preview/preview.client';
import { BackendClient } from './http/backend-client';
import { ServicesController } from './services/services.controller';
import { ServicesClient } from './services/services.client';
import { InspectionRulesClient } from './inspection-rules/inspection-rules.client';
import { InspectionRulesController } from './inspection-rules/inspection-rules.controller';
import { LeasesController } from './leases/leases.controller';
import { LeasesClient } from './leases/leases.client';
import { BlazarController } from './blazar/blazar.controller';
import { BlazarTokenGuard } from './blazar/blazar-token.guard';
import { BlazarClient } from './blazar/blazar.client';
import { DeadLettersController } from './dead-letters/dead-letters.controller';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'gateway',
      config,
      configToken: GATEWAY_CONFIG,
      actorSigning: actorSigningOf(
        config.BUS_SIGNING_KEY,
        config.BUS_ASSERTION_TTL_MS ?? Math.min(60_000, config.RPC_TIMEOUT_MS + 10_000),
      ),
      controllers: [
        PrincipalController,
        ProjectsController,
        ServicesController,
        PoliciesController,
        ExperimentsController,
        PolicyRevisionsController,
        OperationsController,
        PreviewController,
        BacktestController,
        InspectionRulesController,
        LeasesController,
        BlazarController,
        DeadLettersController,
      ],
      providers: [
        Authenticator,
        // Order matters: authenticate, then rate-limit per principal.
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        BackendClient,
        ServicesClient,
        ExperimentsClient,
        PolicyRevisionsClient,
        PreviewClient,
        InspectionRulesClient,
        LeasesClient,
        BlazarClient,
        BlazarTokenGuard,
      ],
    });
  }
}
