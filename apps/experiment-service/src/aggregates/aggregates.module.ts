import { Module } from '@nestjs/common';
import { ExperimentsRepository } from './experiments.repository';
import { PoliciesRepository } from './policies.repository';
import { RelaysModule } from '../relays/relays.module';
import { Aggregates } from './aggregates';

/** The event store and the two aggregates on it, with the projections their commands write. */
@Module({
  imports: [RelaysModule],
  providers: [Aggregates, PoliciesRepository, ExperimentsRepository],
  exports: [Aggregates, PoliciesRepository, ExperimentsRepository],
})
export class AggregatesModule {}
