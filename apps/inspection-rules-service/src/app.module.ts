import { DynamicModule, Module } from '@nestjs/common';
import { INSPECTION_V1, SYSTEM_V1, busNeedsOf } from '@rollout/contracts';
import { serviceModule } from '@rollout/platform/service-kit';
import { INSPECTION_CONFIG, type Config } from './config';
import { InspectionEventsModule } from './events/inspection-events.module';
import { CreateInspectionRules1763800000000 } from './migrations/1763800000000-create-inspection-rules';
import { InspectionResultsAsText1763800000001 } from './migrations/1763800000001-inspection-results-as-text';
import { RuleChanges1763800000002 } from './migrations/1763800000002-rule-changes';
import { RuleStepsAsJson1763800000003 } from './migrations/1763800000003-rule-steps-as-json';
import { RulesModule } from './rules/rules.module';

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
      imports: [RulesModule, InspectionEventsModule],
    });
  }
}
