import { DynamicModule, Module } from '@nestjs/common';
import { INSPECTION_V1, SYSTEM_V1 } from '@rollout/contracts';
import { busNeedsOf } from '@rollout/platform/nats';
import { serviceModule } from '@rollout/platform/service-kit';
import { INSPECTION_CONFIG, type Config } from './config';
import { InspectionEventsConsumer } from './events/inspection-events.consumer';
import { InspectionResultsRepository } from './events/inspection-results.repository';
import { CreateInspectionRules1763800000000 } from './migrations/1763800000000-create-inspection-rules';
import { InspectionResultsAsText1763800000001 } from './migrations/1763800000001-inspection-results-as-text';
import { RuleChanges1763800000002 } from './migrations/1763800000002-rule-changes';
import { RuleStepsAsJson1763800000003 } from './migrations/1763800000003-rule-steps-as-json';
import { loadBuiltInRules } from './rules/built-in-rules';
import { RulesHandlers } from './rules/rules.handlers';
import { RulesRepository } from './rules/rules.repository';
import { RuleCommands } from './rules/rule-commands.application';
import { BUILT_IN_RULES } from './rules/rule-lookup';
import { RuleQueries } from './rules/rule-queries.application';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'inspection-rules-service',
      config,
      configToken: INSPECTION_CONFIG,
      contracts: [SYSTEM_V1, INSPECTION_V1],
      jetstream: busNeedsOf('inspection-rules-service'),
      database: {
        migrations: [
          CreateInspectionRules1763800000000,
          InspectionResultsAsText1763800000001,
          RuleChanges1763800000002,
          RuleStepsAsJson1763800000003,
        ],
      },
      controllers: [RulesHandlers],
      providers: [
        // Read once at start: a broken file stops the service with the reason.
        {
          provide: BUILT_IN_RULES,
          useFactory: () => loadBuiltInRules(config.INSPECTION_BUILT_IN_RULES),
        },
        RulesRepository,
        RuleCommands,
        RuleQueries,
        InspectionResultsRepository,
        InspectionEventsConsumer,
      ],
    });
  }
}
