import { Global, Module } from '@nestjs/common';
import { AdapterServer } from './adapter-server';
import { BudgetModule } from './budget/budget.module';

/** The adapter's NATS server; global, because it is also a readiness check HealthModule must see. */
@Global()
@Module({
  imports: [BudgetModule],
  providers: [AdapterServer],
  exports: [AdapterServer],
})
export class AdapterServerModule {}
