import { Module } from '@nestjs/common';
import { INSPECTION_CONFIG, type Config } from '../config';
import { loadBuiltInRules } from './built-in-rules';
import { BUILT_IN_RULES } from './rule-lookup';
import { RuleCommands } from './rule-commands.application';
import { RuleQueries } from './rule-queries.application';
import { RulesHandlers } from './rules.handlers';
import { RulesRepository } from './rules.repository';

@Module({
  controllers: [RulesHandlers],
  providers: [
    // Read once at start: a broken file stops the service with the reason.
    {
      provide: BUILT_IN_RULES,
      useFactory: (config: Config) => loadBuiltInRules(config.INSPECTION_BUILT_IN_RULES),
      inject: [INSPECTION_CONFIG],
    },
    RulesRepository,
    RuleCommands,
    RuleQueries,
  ],
  exports: [RuleQueries],
})
export class RulesModule {}
