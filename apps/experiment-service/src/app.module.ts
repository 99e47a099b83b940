import { DynamicModule, Module } from '@nestjs/common';
import { EXPERIMENT_V1, SYSTEM_V1, busNeedsOf } from '@rollout/contracts';
import {
  AnswerNames1767200000000,
  CreateEventStore1764000000000,
} from '@rollout/platform/event-store';
import { serviceModule } from '@rollout/platform/service-kit';
import type { Config } from './config';
import { CreateReadModels1764000000001 } from './migrations/1764000000001-read-models';
import { ExperimentAnalysis1767100000000 } from './migrations/1767100000000-experiment-analysis';
import { OneAnswerRecord1767200000001 } from './migrations/1767200000001-one-answer-record';
import { CommitReview1767300000000 } from './migrations/1767300000000-commit-review';
import { ExperimentsModule } from './experiments/experiments.module';
import { OperationsModule } from './operations/operations.module';
import { PoliciesModule } from './policies/policies.module';
import { ProjectsModule } from './projects/projects.module';
import { StateModule } from './state/state.module';
import { ExperimentRecord, PolicyRecord } from './read-models/records';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'experiment-service',
      config,
      contracts: [SYSTEM_V1, EXPERIMENT_V1],
      database: {
        migrations: [
          CreateEventStore1764000000000,
          CreateReadModels1764000000001,
          ExperimentAnalysis1767100000000,
          AnswerNames1767200000000,
          OneAnswerRecord1767200000001,
          CommitReview1767300000000,
        ],
        entities: [PolicyRecord, ExperimentRecord],
      },
      jetstream: busNeedsOf('experiment-service'),
      imports: [PoliciesModule, ExperimentsModule, OperationsModule, ProjectsModule, StateModule],
    });
  }
}
