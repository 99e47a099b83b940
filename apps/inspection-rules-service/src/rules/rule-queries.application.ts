import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  EvaluateInspectionRulesResponse,
  INSPECTION_PHASES,
  InspectionData,
  InspectionPhase,
  InspectionRule,
  ListInspectionRulesRequest,
  StatusError,
} from '@rollout/contracts';
import {
  EngineResult,
  RuleDefinition,
  RuleSet,
  pageRules,
  publicRule,
  publicView,
} from '@rollout/domain/inspection';
import { Config, INSPECTION_CONFIG } from '../config';
import { BUILT_IN_RULES, builtInRule, notFound, storedRuleKey } from './rule-lookup';
import { RulesRepository } from './rules.repository';

/** The compiled rule set is rebuilt when the stored rules' revision moves, which every replica sees. */
@Injectable()
export class RuleQueries {
  private readonly logger = new Logger('InspectionRules');
  private cached?: { revision: string; set: RuleSet };

  constructor(
    private readonly repository: RulesRepository,
    @Inject(BUILT_IN_RULES) private readonly builtIns: RuleDefinition[],
    @Inject(INSPECTION_CONFIG) private readonly config: Config,
  ) {}

  async get(uuid: string): Promise<InspectionRule> {
    return publicRule(await this.find(uuid));
  }

  async list(request: ListInspectionRulesRequest): Promise<InspectionRule[]> {
    if (request.phase !== undefined && !INSPECTION_PHASES.includes(request.phase)) {
      throw StatusError.invalidArgument(`phase must be one of ${INSPECTION_PHASES.join(', ')}.`, [
        { field: 'phase', description: 'unknown phase' },
      ]);
    }
    if (
      request.scope !== undefined &&
      (typeof request.scope !== 'string' || request.scope.includes('\u0000'))
    ) {
      // Postgres text cannot hold NUL: no stored rule has such a scope, and the query must not fail.
      throw StatusError.invalidArgument('scope must be text without NUL characters.', [
        { field: 'scope', description: 'no NUL characters' },
      ]);
    }
    const matches = (rule: RuleDefinition) =>
      (request.scope === undefined || rule.scope === request.scope) &&
      (request.phase === undefined || rule.phase === request.phase);
    const stored = await this.repository.list({ scope: request.scope, phase: request.phase });
    // Built-in rules come first in creation order; the rules are few enough to page in memory.
    const page = pageRules([...this.builtIns.filter(matches), ...stored], request);
    return page.map((rule) => publicRule(rule, request.detail === true));
  }

  async evaluate(
    phase: InspectionPhase,
    data: InspectionData,
  ): Promise<EvaluateInspectionRulesResponse> {
    const result = await this.run(phase, data);
    return publicView(result);
  }

  async run(phase: InspectionPhase, data: InspectionData): Promise<EngineResult> {
    const result = (await this.ruleSet()).run(phase, data);
    for (const entry of result.logs) {
      const method =
        entry.level === 'warning'
          ? 'warn'
          : entry.level === 'error'
            ? 'error'
            : entry.level === 'critical'
              ? 'fatal'
              : entry.level === 'debug'
                ? 'debug'
                : 'log';
      this.logger[method]({ rule: entry.rule }, entry.message);
    }
    return result;
  }

  private async ruleSet(): Promise<RuleSet> {
    const revision = await this.repository.revision();
    if (this.cached?.revision !== revision) {
      const stored = await this.repository.list();
      this.cached = {
        revision,
        set: new RuleSet([...this.builtIns, ...stored], {
          maskSecrets: this.config.INSPECTION_MASK_SECRETS,
        }),
      };
    }
    return this.cached.set;
  }

  private async find(uuid: string): Promise<RuleDefinition> {
    const builtIn = builtInRule(this.builtIns, uuid);
    if (builtIn) return builtIn;
    const rule = await this.repository.get(storedRuleKey(uuid));
    if (!rule) throw notFound(uuid);
    return rule;
  }
}
