import { DynamicModule, Module } from '@nestjs/common';
import {
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_EVENTS_SUBJECTS,
  EXPERIMENT_STATE_BUCKET,
  EXPERIMENT_V1,
  SYSTEM_V1,
} from '@rollout/contracts';
import { CreateEventStore1764000000000 } from '@rollout/platform/event-store';
import { serviceModule } from '@rollout/platform/service-kit';
import type { Config } from './config';
import { CreateReadModels1764000000001 } from './migrations/1764000000001-read-models';
import { ExperimentAnalysis1767100000000 } from './migrations/1767100000000-experiment-analysis';
import { Aggregates } from './aggregates/aggregates';
import { ExperimentCommands } from './experiments/experiment-commands.application';
import { ExperimentQueries } from './experiments/experiment-queries.application';
import { ExperimentHandlers } from './experiments/experiments.handlers';
import { ExperimentsRepository } from './experiments/experiments.repository';
import { OperationQueries } from './operations/operation-queries.application';
import { OperationHandlers } from './operations/operations.handlers';
import { OperationsRepository } from './operations/operations.repository';
import { PoliciesRepository } from './policies/policies.repository';
import { PolicyHandlers } from './policies/policies.handlers';
import { PolicyCommands } from './policies/policy-commands.application';
import { PolicyQueries } from './policies/policy-queries.application';
import { EventRelays } from './relays/event-relays';
import { ExperimentRecord, OperationRecord, PolicyRecord } from './read-models/records';

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
        ],
        entities: [PolicyRecord, ExperimentRecord, OperationRecord],
      },
      jetstream: {
        streams: [
          {
            name: EXPERIMENT_EVENTS_STREAM,
            subjects: [EXPERIMENT_EVENTS_SUBJECTS],
            maxAgeMs: config.EXPERIMENT_EVENTS_MAX_AGE_MS,
            // JetStream reserves this on disk when the stream is created; domain events are small.
            maxBytes: 1024 ** 3,
            // Longer than any relay outage we expect to recover from by republishing.
            duplicateWindowMs: Math.min(60 * 60 * 1000, config.EXPERIMENT_EVENTS_MAX_AGE_MS),
          },
        ],
        // Current state: the last entry per key, forever (no age or size limit).
        kv: [{ bucket: EXPERIMENT_STATE_BUCKET, history: 1 }],
      },
      controllers: [PolicyHandlers, ExperimentHandlers, OperationHandlers],
      providers: [
        EventRelays,
        Aggregates,
        PoliciesRepository,
        ExperimentsRepository,
        OperationsRepository,
        PolicyCommands,
        PolicyQueries,
        ExperimentCommands,
        ExperimentQueries,
        OperationQueries,
      ],
    });
  }
}
