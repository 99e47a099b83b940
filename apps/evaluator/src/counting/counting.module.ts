import { Module } from '@nestjs/common';
import { DeadLettersModule } from '../dead-letters/dead-letters.module';
import { ChangedFlowsRepository } from './changed-flows.repository';
import { ConfigurationTotalsRepository } from './configuration-totals.repository';
import { ConfigurationsRepository } from './configurations.repository';
import { DisagreementsRepository } from './disagreements.repository';
import { PreviewCountsRepository } from './preview-counts.repository';

/**
 * The preview counts (a batch's dead letters are written with them); only PreviewCountsRepository
 * is used outside, the rest are its parts.
 */
@Module({
  imports: [DeadLettersModule],
  providers: [
    PreviewCountsRepository,
    ConfigurationsRepository,
    ChangedFlowsRepository,
    DisagreementsRepository,
    ConfigurationTotalsRepository,
  ],
  exports: [PreviewCountsRepository],
})
export class CountingModule {}
