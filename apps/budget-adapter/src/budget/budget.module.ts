import { Module } from '@nestjs/common';
import { BudgetAdapter } from './budget-adapter';
import { BudgetMetrics } from './budget-metrics';
import { BudgetRepository } from './budget.repository';

@Module({
  providers: [BudgetMetrics, BudgetRepository, BudgetAdapter],
  exports: [BudgetAdapter, BudgetMetrics],
})
export class BudgetModule {}
