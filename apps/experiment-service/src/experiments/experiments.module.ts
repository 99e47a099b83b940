import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { PoliciesModule } from '../policies/policies.module';
import { ProjectsModule } from '../projects/projects.module';
import { CommitProposalsRepository } from './commit-proposals.repository';
import { ExperimentCommands } from './experiment-commands.application';
import { ExperimentQueries } from './experiment-queries.application';
import { ExperimentHandlers } from './experiments.handlers';

@Module({
  imports: [AggregatesModule, PoliciesModule, ProjectsModule],
  controllers: [ExperimentHandlers],
  providers: [ExperimentCommands, ExperimentQueries, CommitProposalsRepository],
})
export class ExperimentsModule {}
