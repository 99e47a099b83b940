import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { OperationQueries } from './operation-queries.application';
import { OperationHandlers } from './operations.handlers';
import { OperationsRepository } from './operations.repository';

/** Long-running operations (AIP-151): the answers commands kept, by name. */
@Module({
  imports: [AggregatesModule],
  controllers: [OperationHandlers],
  providers: [OperationQueries, OperationsRepository],
})
export class OperationsModule {}
