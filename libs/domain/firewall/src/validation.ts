import type { RuleMatch } from '@rollout/contracts';
import { MATCH_FIELD_NAMES, MATCH_FIELDS } from './match-fields';
import { FirewallRule, MAX_PRIORITY, MIN_PRIORITY, PolicyContent } from './model';
import { FieldViolation, isObject, Violations } from './violations';

export type { FieldViolation } from './violations';
export { isIpRange } from './match-fields';

const RULE_FIELDS = new Set([
  'priority',
  'direction',
  'action',
  'match',
  'targetTags',
  'description',
  'disabled',
]);
const POLICY_FIELDS = new Set(['displayName', 'description', 'rules']);
/** Read-only fields a client may echo back; they are ignored, as AIP-203 says. */
const OUTPUT_ONLY = new Set(['name', 'etag', 'createTime', 'updateTime']);
const MAX_RULES = 1_000;
const TAG = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MATCH_FIELD_SET: ReadonlySet<string> = new Set(MATCH_FIELD_NAMES);

function rule(value: unknown, path: string, out: Violations): FirewallRule | undefined {
  if (!isObject(value)) return (void out.add(path, 'must be an object'), undefined);
  out.unknownFields(value, RULE_FIELDS, path);
  const { priority, direction, action, match, targetTags, description, disabled } = value;
  if (
    !Number.isInteger(priority) ||
    (priority as number) < MIN_PRIORITY ||
    (priority as number) > MAX_PRIORITY
  ) {
    out.add(`${path}.priority`, `must be an integer ${MIN_PRIORITY}-${MAX_PRIORITY}`);
  }
  if (direction !== 'INGRESS' && direction !== 'EGRESS')
    out.add(`${path}.direction`, 'must be INGRESS or EGRESS');
  if (action !== 'allow' && action !== 'deny') out.add(`${path}.action`, 'must be allow or deny');
  if (description !== undefined && (typeof description !== 'string' || description.length > 2048)) {
    out.add(`${path}.description`, 'must be a string of at most 2048 characters');
  }
  if (disabled !== undefined && typeof disabled !== 'boolean')
    out.add(`${path}.disabled`, 'must be true or false');
  const tags = out.list(targetTags, `${path}.targetTags`, (t) =>
    typeof t === 'string' && TAG.test(t) ? undefined : 'must be a lower-case tag',
  );
  const matchValue = match ?? {};
  if (!isObject(matchValue)) return (void out.add(`${path}.match`, 'must be an object'), undefined);
  out.unknownFields(matchValue, MATCH_FIELD_SET, `${path}.match`);
  const checked: Record<string, unknown> = {};
  for (const name of MATCH_FIELD_NAMES) {
    const value = MATCH_FIELDS[name].validate(matchValue[name], `${path}.match.${name}`, out);
    if (value !== undefined) checked[name] = value;
  }
  return {
    priority: priority as number,
    direction: direction as FirewallRule['direction'],
    action: action as FirewallRule['action'],
    match: checked as RuleMatch,
    ...(tags ? { targetTags: tags } : {}),
    ...(description !== undefined ? { description: description as string } : {}),
    ...(disabled !== undefined ? { disabled: disabled as boolean } : {}),
  };
}

export function validatePolicyContent(
  input: unknown,
  path: string,
): { content?: PolicyContent; violations: FieldViolation[] } {
  const out = new Violations();
  if (!isObject(input)) {
    out.add(path, 'must be an object');
    return { violations: out.found };
  }
  out.unknownFields(input, POLICY_FIELDS, path, OUTPUT_ONLY);
  const { displayName, description } = input;
  if (displayName !== undefined && (typeof displayName !== 'string' || displayName.length > 63)) {
    out.add(`${path}.displayName`, 'must be a string of at most 63 characters');
  }
  if (description !== undefined && (typeof description !== 'string' || description.length > 2048)) {
    out.add(`${path}.description`, 'must be a string of at most 2048 characters');
  }
  const rawRules = input.rules ?? [];
  let rules: FirewallRule[] = [];
  if (!Array.isArray(rawRules)) out.add(`${path}.rules`, 'must be a list');
  else if (rawRules.length > MAX_RULES) out.add(`${path}.rules`, `at most ${MAX_RULES} rules`);
  else {
    rules = rawRules.map((r, i) => rule(r, `${path}.rules[${i}]`, out)!).filter(Boolean);
    const seen = new Map<number, number>();
    rules.forEach((r, i) => {
      const first = seen.get(r.priority);
      if (first !== undefined)
        out.add(
          `${path}.rules[${i}].priority`,
          `priority ${r.priority} is already used by rules[${first}]`,
        );
      else seen.set(r.priority, i);
    });
  }
  if (out.found.length) return { violations: out.found };
  return {
    content: {
      ...(displayName !== undefined ? { displayName: displayName as string } : {}),
      ...(description !== undefined ? { description: description as string } : {}),
      rules,
    },
    violations: [],
  };
}
