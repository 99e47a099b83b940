import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CreateInspectionRuleRequest,
  EvaluateInspectionRulesResponse,
  INSPECTION_PHASES,
  ImportInspectionRulesRequest,
  InspectionData,
  InspectionPhase,
  InspectionRule,
  JsonPatchOperation,
  ListInspectionRulesRequest,
  StatusError,
} from '@rollout/contracts';
import {
  EngineResult,
  RuleDefinition,
  RuleFields,
  RuleSet,
  pageRules,
  patchRule,
  publicRule,
  publicView,
  validateRule,
} from '@rollout/inspection-domain';
import { randomUUID } from 'node:crypto';
import { Config, INSPECTION_CONFIG } from '../config';
import { parseRulesYaml } from './built-in-rules';
import {
  DuplicateRuleError,
  RuleChangeContext,
  RuleChangeKind,
  RulesRepository,
} from './rules.repository';

export const BUILT_IN_RULES = Symbol('BUILT_IN_RULES');
const MAX_IMPORT = 1000;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(uuid: string): StatusError {
  // Ironic's words, which its clients show as they are.
  return StatusError.withReason('NOT_FOUND', `Rule ${uuid} could not be found.`, 'RULE_NOT_FOUND', {
    uuid,
  });
}

/**
 * An import refuses every rule it cannot take, each with its reason (its field violations
 * prefixed by `rules[i].`), and imports none.
 */
function refusedRules(
  refused: { index: number; error: StatusError }[],
  total: number,
): StatusError {
  const violations = refused.flatMap(({ index, error }) => {
    const fields = error.details.flatMap((detail) =>
      'fieldViolations' in detail && Array.isArray(detail.fieldViolations)
        ? detail.fieldViolations
        : [],
    );
    return fields.length
      ? fields.map((v: { field: string; description: string }) => ({
          field: `rules[${index}]${v.field ? `.${v.field}` : ''}`,
          description: v.description,
        }))
      : [{ field: `rules[${index}]`, description: error.message }];
  });
  const reasons = refused.map(({ index, error }) => `Rule ${index}: ${error.message}`).join(' ');
  return StatusError.invalidArgument(
    `${refused.length} of ${total} rules refused, none imported. ${reasons}`,
    violations,
  );
}

function builtInRefused(uuid: string, what: string): StatusError {
  return StatusError.withReason(
    'INVALID_ARGUMENT',
    `Inspection rule ${uuid} is built in and cannot be ${what}.`,
    'BUILT_IN_RULE',
    { uuid },
  );
}

/**
 * The rules (built-ins from the YAML file plus the stored ones) and the engine over them.
 * The compiled rule set is cached and rebuilt when the stored rules' revision moves, which
 * every replica sees, so an event never runs against a stale set for long.
 */
@Injectable()
export class RulesApplication {
  private readonly logger = new Logger('InspectionRules');
  private cached?: { revision: string; set: RuleSet };

  constructor(
    private readonly repository: RulesRepository,
    @Inject(BUILT_IN_RULES) private readonly builtIns: RuleDefinition[],
    @Inject(INSPECTION_CONFIG) private readonly config: Config,
  ) {}

  /** `rule`: the rule fields, without the request's actor. */
  async create(
    rule: Omit<CreateInspectionRuleRequest, 'actor'>,
    change: RuleChangeContext,
  ): Promise<InspectionRule> {
    const [created] = await this.insert([rule], change, 'created');
    return created;
  }

  /** Imports a list of rules, all or nothing. */
  async import(
    request: ImportInspectionRulesRequest,
    change: RuleChangeContext,
  ): Promise<InspectionRule[]> {
    const rules = request.yaml !== undefined ? parseRulesYaml(request.yaml) : request.rules;
    if (!Array.isArray(rules)) throw StatusError.invalidArgument('An import is a list of rules.');
    if (rules.length > MAX_IMPORT)
      throw StatusError.invalidArgument(`At most ${MAX_IMPORT} rules per import.`);
    return this.insert(rules, change, 'imported');
  }

  private async insert(
    inputs: unknown[],
    change: RuleChangeContext,
    kind: 'created' | 'imported',
  ): Promise<InspectionRule[]> {
    const rules: (RuleFields & { uuid: string })[] = [];
    const refused: { index: number; error: StatusError }[] = [];
    inputs.forEach((input, index) => {
      try {
        const fields = validateRule(input, {
          defaultScope: this.config.INSPECTION_DEFAULT_SCOPE ?? null,
        });
        rules.push({ ...fields, uuid: fields.uuid ?? randomUUID() });
      } catch (error) {
        if (
          inputs.length > 1 &&
          error instanceof StatusError &&
          error.status === 'INVALID_ARGUMENT'
        )
          refused.push({ index, error });
        else throw error;
      }
    });
    if (refused.length) throw refusedRules(refused, inputs.length);
    const uuids = new Set<string>();
    for (const rule of rules) {
      if (uuids.has(rule.uuid) || this.builtIn(rule.uuid)) throw this.duplicate(rule.uuid);
      uuids.add(rule.uuid);
    }
    let created: RuleDefinition[];
    try {
      created = await this.repository.insertAll(rules, change, kind);
    } catch (error) {
      if (error instanceof DuplicateRuleError) throw this.duplicate(error.message);
      throw error;
    }
    this.changed(
      kind,
      created.map((rule) => rule.uuid),
      change,
    );
    return created.map((rule) => publicRule(rule));
  }

  /** Logs a rule change with its actor; the request-scoped logger adds the request id (reqId). */
  private changed(kind: RuleChangeKind, uuids: string[], change: RuleChangeContext) {
    this.logger.log(
      { actor: change.actor, change: kind, rules: uuids },
      `inspection rules ${kind}`,
    );
  }

  private duplicate(uuid: string) {
    return StatusError.withReason(
      'ALREADY_EXISTS',
      `A rule with UUID ${uuid} already exists.`,
      'RULE_EXISTS',
      { uuid },
    );
  }

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

  async patch(
    uuid: string,
    patch: JsonPatchOperation[],
    change: RuleChangeContext,
  ): Promise<InspectionRule> {
    if (this.builtIn(uuid)) throw builtInRefused(uuid, 'modified');
    if (!UUID_SHAPE.test(uuid)) throw notFound(uuid);
    const updated = await this.repository.update(
      uuid.toLowerCase(),
      (current) => patchRule(current, patch),
      change,
    );
    if (!updated) throw notFound(uuid);
    this.changed('updated', [updated.uuid], change);
    return publicRule(updated);
  }

  async delete(uuid: string, change: RuleChangeContext): Promise<void> {
    if (this.builtIn(uuid)) throw builtInRefused(uuid, 'deleted');
    if (!UUID_SHAPE.test(uuid)) throw notFound(uuid);
    if (!(await this.repository.delete(uuid.toLowerCase(), change))) throw notFound(uuid);
    this.changed('deleted', [uuid.toLowerCase()], change);
  }

  /** Deletes every stored rule; built-ins stay. */
  async deleteAll(change: RuleChangeContext): Promise<void> {
    const deleted = await this.repository.deleteAll(change);
    this.changed('deleted', deleted, change);
  }

  /** What the phase's rules would do to this data, with sensitive values hidden. */
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

  private builtIn(uuid: string): RuleDefinition | undefined {
    return this.builtIns.find((rule) => rule.uuid === uuid.toLowerCase());
  }

  private async find(uuid: string): Promise<RuleDefinition> {
    const builtIn = this.builtIn(uuid);
    if (builtIn) return builtIn;
    if (!UUID_SHAPE.test(uuid)) throw notFound(uuid);
    const rule = await this.repository.get(uuid.toLowerCase());
    if (!rule) throw notFound(uuid);
    return rule;
  }
}
