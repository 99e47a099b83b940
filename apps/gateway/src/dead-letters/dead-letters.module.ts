import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { DeadLettersController } from './dead-letters.controller';

/** The dead-letter log of the evaluator's streams. */
@Module({
  imports: [BackendModule],
  controllers: [DeadLettersController],
})
export class DeadLettersModule {}
