import { Module } from '@nestjs/common';
import { BudgetAdapter } from './budget-adapter';
import { BudgetMetrics } from './budget-metrics';
import { BudgetRepository } from './budget.repository';

/** The budget rules and their ledger; the adapter server answers with them and counts with the metrics. */
@Module({
  providers: [BudgetMetrics, BudgetRepository, BudgetAdapter],
  exports: [BudgetAdapter, BudgetMetrics],
})
export class BudgetModule {}
