import { DynamicModule, Module } from '@nestjs/common';
import { platformModules } from '@rollout/service-kit';
import { AdapterServer } from './adapter-server';
import { BudgetAdapter } from './budget/budget-adapter';
import { BudgetMetrics } from './budget/budget-metrics';
import { BudgetRepository } from './budget/budget.repository';
import { CLOCK, systemClock } from './clock';
import { BUDGET_ADAPTER_CONFIG, Config } from './config';
import { CreateBudgetLedger1764400000000 } from './migrations/1764400000000-create-budget-ledger';

/** The adapter and its NATS server; global, because the server is also a readiness check. */
@Module({})
class BudgetAdapterModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: BudgetAdapterModule,
      global: true,
      providers: [
        { provide: BUDGET_ADAPTER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: systemClock },
        BudgetMetrics,
        BudgetRepository,
        BudgetAdapter,
        AdapterServer,
      ],
      exports: [AdapterServer],
    };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        BudgetAdapterModule.forRoot(config),
        ...platformModules({
          service: 'budget-adapter',
          config,
          database: { migrations: [CreateBudgetLedger1764400000000] },
          readiness: [AdapterServer],
        }),
      ],
    };
  }
}
