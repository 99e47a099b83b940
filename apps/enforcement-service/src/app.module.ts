import { DynamicModule, Module } from '@nestjs/common';
import { ENFORCEMENT_V1, SYSTEM_V1, busNeedsOf } from '@rollout/contracts';
import type { EnforcementConfig } from '@rollout/domain/enforcement';
import { serviceModule } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from './config';
import { ChainModule } from './chain/chain.module';
import { LeasesModule } from './leases/leases.module';
import { CreateLeaseLedger1764300000000 } from './migrations/1764300000000-create-lease-ledger';
import { CreateDeliveryOutboxes1766700000000 } from './migrations/1766700000000-create-delivery-outboxes';

@Module({})
export class AppModule {
  /** `enforcement` is validated by main.ts before anything connects. */
  static forRoot(config: Config, enforcement: EnforcementConfig): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'enforcement-service',
      config,
      configToken: ENFORCEMENT_SERVICE_CONFIG,
      contracts: [SYSTEM_V1, ENFORCEMENT_V1],
      // Its one JetStream use: the ASSERTION_IDS bucket of its replay check.
      jetstream: busNeedsOf('enforcement-service'),
      database: {
        migrations: [CreateLeaseLedger1764300000000, CreateDeliveryOutboxes1766700000000],
      },
      imports: [ChainModule.forRoot(enforcement), LeasesModule],
    });
  }
}
