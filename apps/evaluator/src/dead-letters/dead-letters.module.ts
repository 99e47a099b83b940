import { Module } from '@nestjs/common';
import { DeadLetterHandlers } from './dead-letters.handlers';
import { DeadLettersRepository } from './dead-letters.repository';

/** The dead-letter log and its queries; retention trims it. */
@Module({
  controllers: [DeadLetterHandlers],
  providers: [DeadLettersRepository],
  exports: [DeadLettersRepository],
})
export class DeadLettersModule {}
