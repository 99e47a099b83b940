import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { OperationsController } from './operations.controller';

@Module({
  imports: [BackendModule],
  controllers: [OperationsController],
})
export class OperationsModule {}
