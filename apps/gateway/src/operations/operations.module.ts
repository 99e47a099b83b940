import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { OperationsController } from './operations.controller';

/** Long-running operations of the backend services. */
@Module({
  imports: [BackendModule],
  controllers: [OperationsController],
})
export class OperationsModule {}
