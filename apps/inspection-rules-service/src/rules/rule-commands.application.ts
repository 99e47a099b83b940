import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CreateInspectionRuleRequest,
  ImportInspectionRulesRequest,
  InspectionRule,
  JsonPatchOperation,
  StatusError,
} from '@rollout/contracts';
import {
  RuleDefinition,
  RuleFields,
  patchRule,
  publicRule,
  validateRule,
} from '@rollout/domain/inspection';
import { randomUUID } from 'node:crypto';
import { Config, INSPECTION_CONFIG } from '../config';
import { parseRulesYaml } from './built-in-rules';
import { BUILT_IN_RULES, builtInRule, notFound, storedRuleKey } from './rule-lookup';
import {
  DuplicateRuleError,
  RuleChangeContext,
  RuleChangeKind,
  RulesRepository,
} from './rules.repository';

const MAX_IMPORT = 1000;

/** An import refuses every rule it cannot take, each with its reason, and imports none. */
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

function duplicate(uuid: string): StatusError {
  return StatusError.withReason(
    'ALREADY_EXISTS',
    `A rule with UUID ${uuid} already exists.`,
    'RULE_EXISTS',
    { uuid },
  );
}

@Injectable()
export class RuleCommands {
  private readonly logger = new Logger('InspectionRules');

  constructor(
    private readonly repository: RulesRepository,
    @Inject(BUILT_IN_RULES) private readonly builtIns: RuleDefinition[],
    @Inject(INSPECTION_CONFIG) private readonly config: Config,
  ) {}

  async create(
    rule: Omit<CreateInspectionRuleRequest, 'actor'>,
    change: RuleChangeContext,
  ): Promise<InspectionRule> {
    const [created] = await this.insert([rule], change, 'created');
    return created;
  }

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

  async patch(
    uuid: string,
    patch: JsonPatchOperation[],
    change: RuleChangeContext,
  ): Promise<InspectionRule> {
    if (builtInRule(this.builtIns, uuid)) throw builtInRefused(uuid, 'modified');
    const updated = await this.repository.update(
      storedRuleKey(uuid),
      (current) => patchRule(current, patch),
      change,
    );
    if (!updated) throw notFound(uuid);
    this.changed('updated', [updated.uuid], change);
    return publicRule(updated);
  }

  async delete(uuid: string, change: RuleChangeContext): Promise<void> {
    if (builtInRule(this.builtIns, uuid)) throw builtInRefused(uuid, 'deleted');
    const key = storedRuleKey(uuid);
    if (!(await this.repository.delete(key, change))) throw notFound(uuid);
    this.changed('deleted', [key], change);
  }

  async deleteAll(change: RuleChangeContext): Promise<void> {
    const deleted = await this.repository.deleteAll(change);
    this.changed('deleted', deleted, change);
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
        // A create answers with the rule's own error, as Ironic's POST does.
        if (
          kind === 'imported' &&
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
      if (uuids.has(rule.uuid) || builtInRule(this.builtIns, rule.uuid)) throw duplicate(rule.uuid);
      uuids.add(rule.uuid);
    }
    let created: RuleDefinition[];
    try {
      created = await this.repository.insertAll(rules, change, kind);
    } catch (error) {
      if (error instanceof DuplicateRuleError) throw duplicate(error.message);
      throw error;
    }
    this.changed(
      kind,
      created.map((rule) => rule.uuid),
      change,
    );
    return created.map((rule) => publicRule(rule));
  }

  /** The request-scoped logger adds the request id (reqId). */
  private changed(kind: RuleChangeKind, uuids: string[], change: RuleChangeContext) {
    this.logger.log(
      { actor: change.actor, change: kind, rules: uuids },
      `inspection rules ${kind}`,
    );
  }
}
