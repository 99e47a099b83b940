import { Module } from '@nestjs/common';
import { ExperimentsRepository } from './experiments.repository';
import { PoliciesRepository } from './policies.repository';
import { RelaysModule } from '../relays/relays.module';
import { Aggregates } from './aggregates';

@Module({
  imports: [RelaysModule],
  providers: [Aggregates, PoliciesRepository, ExperimentsRepository],
  exports: [Aggregates, PoliciesRepository, ExperimentsRepository],
})
export class AggregatesModule {}
