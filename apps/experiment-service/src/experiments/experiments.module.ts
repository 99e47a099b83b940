import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { PoliciesModule } from '../policies/policies.module';
import { ExperimentCommands } from './experiment-commands.application';
import { ExperimentQueries } from './experiment-queries.application';
import { ExperimentHandlers } from './experiments.handlers';

/** Experiments (AIP-236): their commands, from create to commit, and queries. */
@Module({
  imports: [AggregatesModule, PoliciesModule],
  controllers: [ExperimentHandlers],
  providers: [ExperimentCommands, ExperimentQueries],
})
export class ExperimentsModule {}
