import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { PolicyHandlers } from './policies.handlers';
import { PolicyCommands } from './policy-commands.application';
import { PolicyQueries } from './policy-queries.application';
import { PolicyRevisions } from './policy-revisions.application';
import { RevisionHandlers } from './revisions.handlers';

@Module({
  imports: [AggregatesModule],
  controllers: [PolicyHandlers, RevisionHandlers],
  providers: [PolicyCommands, PolicyQueries, PolicyRevisions],
  exports: [PolicyRevisions],
})
export class PoliciesModule {}
