import { Module } from '@nestjs/common';
import { RulesModule } from '../rules/rules.module';
import { InspectionEventsConsumer } from './inspection-events.consumer';
import { InspectionResultsRepository } from './inspection-results.repository';

@Module({
  imports: [RulesModule],
  providers: [InspectionResultsRepository, InspectionEventsConsumer],
})
export class InspectionEventsModule {}
