import { Module } from '@nestjs/common';
import { CountingModule } from '../counting/counting.module';
import { DeadLettersModule } from '../dead-letters/dead-letters.module';
import { PreviewRetention } from './preview-retention.job';
import { RetentionRepository } from './retention.repository';

/** Trims old preview data and dead letters; the traffic consumer tells it what it wrote. */
@Module({
  imports: [CountingModule, DeadLettersModule],
  providers: [PreviewRetention, RetentionRepository],
  exports: [PreviewRetention],
})
export class RetentionModule {}
