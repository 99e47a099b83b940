import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { PoliciesModule } from '../policies/policies.module';
import { ExperimentCommands } from './experiment-commands.application';
import { ExperimentQueries } from './experiment-queries.application';
import { ExperimentHandlers } from './experiments.handlers';

@Module({
  imports: [AggregatesModule, PoliciesModule],
  controllers: [ExperimentHandlers],
  providers: [ExperimentCommands, ExperimentQueries],
})
export class ExperimentsModule {}
