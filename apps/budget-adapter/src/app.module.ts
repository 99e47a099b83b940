import { DynamicModule, Module } from '@nestjs/common';
import { serviceModule } from '@rollout/platform/service-kit';
import { AdapterServer } from './adapter-server';
import { AdapterServerModule } from './adapter-server.module';
import { BUDGET_ADAPTER_CONFIG, Config } from './config';
import { CreateBudgetLedger1764400000000 } from './migrations/1764400000000-create-budget-ledger';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'budget-adapter',
      config,
      configToken: BUDGET_ADAPTER_CONFIG,
      database: { migrations: [CreateBudgetLedger1764400000000] },
      readiness: [AdapterServer],
      imports: [AdapterServerModule],
    });
  }
}
