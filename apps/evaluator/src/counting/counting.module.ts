import { Module } from '@nestjs/common';
import { DeadLettersModule } from '../dead-letters/dead-letters.module';
import { CohortsRepository } from './cohorts.repository';
import { ConfigurationTotalsRepository } from './configuration-totals.repository';
import { ConfigurationsRepository } from './configurations.repository';
import { CountingWindows } from './counting-windows';
import { PreviewCountsRepository } from './preview-counts.repository';

/**
 * The preview counts (a window's dead letters are written with them); only CountingWindows and
 * PreviewCountsRepository are used outside, the rest are their parts.
 */
@Module({
  imports: [DeadLettersModule],
  providers: [
    PreviewCountsRepository,
    CountingWindows,
    ConfigurationsRepository,
    CohortsRepository,
    ConfigurationTotalsRepository,
  ],
  exports: [PreviewCountsRepository, CountingWindows],
})
export class CountingModule {}
