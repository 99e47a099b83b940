import { canonicalJson } from '@rollout/contracts';
import { createHash } from 'node:crypto';

/**
 * Resource-hours per type and project, with a default for projects not listed; a type with no
 * budget for a project is not limited.
 *   { "budgets": { "acme": { "physical:host": 100 } }, "default": { "physical:host": 10 } }
 */
export interface BudgetConfig {
  budgets: Record<string, Record<string, number>>;
  default: Record<string, number>;
}

export interface FieldViolation {
  field: string;
  description: string;
}

export type ParsedBudgetConfig =
  { ok: true; config: BudgetConfig } | { ok: false; violations: FieldViolation[] };

const KEYS = ['budgets', 'default'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function limits(raw: unknown, field: string, violations: FieldViolation[]): Record<string, number> {
  if (!isPlainObject(raw)) {
    violations.push({ field, description: 'must be an object of resource type → resource-hours' });
    return {};
  }
  const out: Record<string, number> = {};
  for (const [type, hours] of Object.entries(raw)) {
    if (!type.trim())
      violations.push({
        field: `${field}.${type}`,
        description: 'a resource type must not be empty',
      });
    else if (typeof hours !== 'number' || !Number.isFinite(hours) || hours < 0) {
      violations.push({
        field: `${field}.${type}`,
        description: 'must be a number of resource-hours ≥ 0',
      });
    } else out[type] = hours;
  }
  return out;
}

/** Every problem names its field (`adapterConfig.budgets.acme.physical:host`). */
export function parseBudgetConfig(raw: unknown, prefix = 'adapterConfig'): ParsedBudgetConfig {
  const violations: FieldViolation[] = [];
  if (!isPlainObject(raw))
    return { ok: false, violations: [{ field: prefix, description: 'must be an object' }] };
  for (const key of Object.keys(raw)) {
    if (!KEYS.includes(key))
      violations.push({
        field: `${prefix}.${key}`,
        description: `unknown setting (expected one of: ${KEYS.join(', ')})`,
      });
  }
  const budgets: BudgetConfig['budgets'] = {};
  if (raw['budgets'] !== undefined) {
    if (!isPlainObject(raw['budgets'])) {
      violations.push({
        field: `${prefix}.budgets`,
        description: 'must be an object of project → { resource type → resource-hours }',
      });
    } else {
      for (const [project, value] of Object.entries(raw['budgets']))
        budgets[project] = limits(value, `${prefix}.budgets.${project}`, violations);
    }
  }
  const defaults =
    raw['default'] === undefined ? {} : limits(raw['default'], `${prefix}.default`, violations);
  return violations.length
    ? { ok: false, violations }
    : { ok: true, config: { budgets, default: defaults } };
}

export function budgetOf(
  config: BudgetConfig,
  project: string,
  resourceType: string,
): number | undefined {
  return Object.prototype.hasOwnProperty.call(config.budgets, project)
    ? (config.budgets[project][resourceType] ?? config.default[resourceType])
    : config.default[resourceType];
}

export function configKey(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}
