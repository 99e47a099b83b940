import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { DeadLettersController } from './dead-letters.controller';

@Module({
  imports: [BackendModule],
  controllers: [DeadLettersController],
})
export class DeadLettersModule {}
