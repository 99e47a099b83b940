import type { FirewallRule } from '@rollout/contracts';
import { MATCH_FIELD_NAMES, MATCH_FIELDS } from '../match-fields';

/**
 * Two rules that match the same connections the same way have the same normal form: list fields
 * are sets, address ranges are the CIDR blocks they cover, protocols are named, and a field set
 * to its default is absent.
 */
export type NormalRule = Map<string, string | string[]>;

const sortedSet = (values: readonly string[]) => [...new Set(values)].sort();

export function normalizeRule(rule: FirewallRule): NormalRule {
  const fields: NormalRule = new Map();
  fields.set('action', rule.action);
  fields.set('direction', rule.direction);
  if (rule.description) fields.set('description', rule.description);
  if (rule.disabled === true) fields.set('disabled', 'true');
  const tags = sortedSet(rule.targetTags ?? []);
  if (tags.length) fields.set('targetTags', tags);
  for (const name of MATCH_FIELD_NAMES) {
    const normal = MATCH_FIELDS[name].normal as (value: unknown) => string[];
    fields.set(`match.${name}`, normal(rule.match?.[name]));
  }
  // A rule field the model gains later is compared as written until it gets a normal form here.
  for (const [key, value] of Object.entries(rule)) {
    if (KNOWN_RULE_FIELDS.has(key) || value === undefined) continue;
    fields.set(key, JSON.stringify(value));
  }
  return fields;
}

const KNOWN_RULE_FIELDS = new Set([
  'priority',
  'action',
  'direction',
  'description',
  'disabled',
  'targetTags',
  'match',
]);
