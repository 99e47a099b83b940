import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { ExperimentCommitsController } from './experiment-commits.controller';
import { ExperimentsClient } from './experiments.client';
import { ExperimentsController } from './experiments.controller';
import { PoliciesController } from './policies.controller';
import { PolicyRevisionsClient } from './policy-revisions.client';
import { PolicyRevisionsController } from './policy-revisions.controller';
import { ProjectSettingsClient, ProjectSettingsController } from './project-settings.controller';
import { ProjectsController } from './projects.controller';

@Module({
  imports: [BackendModule],
  controllers: [
    PoliciesController,
    ExperimentsController,
    ExperimentCommitsController,
    PolicyRevisionsController,
    ProjectSettingsController,
    ProjectsController,
  ],
  providers: [ExperimentsClient, PolicyRevisionsClient, ProjectSettingsClient],
})
export class ExperimentsModule {}
