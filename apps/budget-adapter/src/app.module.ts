import { DynamicModule, Global, Module } from '@nestjs/common';
import { serviceModule } from '@rollout/platform/service-kit';
import { AdapterServer } from './adapter-server';
import { BudgetAdapter } from './budget/budget-adapter';
import { BudgetMetrics } from './budget/budget-metrics';
import { BudgetRepository } from './budget/budget.repository';
import { BUDGET_ADAPTER_CONFIG, Config } from './config';
import { CreateBudgetLedger1764400000000 } from './migrations/1764400000000-create-budget-ledger';

/** The adapter and its NATS server; global, because the server is also a readiness check. */
@Global()
@Module({
  providers: [BudgetMetrics, BudgetRepository, BudgetAdapter, AdapterServer],
  exports: [AdapterServer],
})
class BudgetAdapterModule {}

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
      imports: [BudgetAdapterModule],
    });
  }
}
