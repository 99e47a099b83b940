import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { OperationQueries } from './operation-queries.application';
import { OperationHandlers } from './operations.handlers';
import { OperationsRepository } from './operations.repository';

@Module({
  imports: [AggregatesModule],
  controllers: [OperationHandlers],
  providers: [OperationQueries, OperationsRepository],
})
export class OperationsModule {}
