import type { ChangedRule, FirewallRule, RuleFieldChange } from '@rollout/contracts';
import { canonicalJson } from '@rollout/contracts';

/** What two rule lists differ in, matched by priority (unique within a policy). */
export interface StructuralDiff {
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  unchangedCount: number;
}

const byPriority = (a: FirewallRule, b: FirewallRule) => a.priority - b.priority;

/** A rule's fields as dotted paths: the match's fields one by one, the others as they are. */
function fieldsOf(rule: FirewallRule): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(rule)) {
    if (key === 'priority' || value === undefined) continue;
    if (key === 'match' && value && typeof value === 'object') {
      for (const [matchKey, matchValue] of Object.entries(value))
        if (matchValue !== undefined) fields.set(`match.${matchKey}`, matchValue);
    } else fields.set(key, value);
  }
  return fields;
}

/** The fields of two rules of the same priority that differ, by name; an absent field is left out. */
export function changedFields(before: FirewallRule, after: FirewallRule): RuleFieldChange[] {
  const a = fieldsOf(before);
  const b = fieldsOf(after);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  return names
    .filter((name) => canonicalJson(a.get(name) ?? null) !== canonicalJson(b.get(name) ?? null))
    .map((field) => ({
      field,
      ...(a.has(field) ? { before: a.get(field) } : {}),
      ...(b.has(field) ? { after: b.get(field) } : {}),
    }));
}

/** Rules added, removed and changed from `from` to `to`, each list by priority. */
export function diffRules(
  from: readonly FirewallRule[],
  to: readonly FirewallRule[],
): StructuralDiff {
  const before = new Map(from.map((rule) => [rule.priority, rule]));
  const after = new Map(to.map((rule) => [rule.priority, rule]));
  const added = to.filter((rule) => !before.has(rule.priority)).sort(byPriority);
  const removed = from.filter((rule) => !after.has(rule.priority)).sort(byPriority);
  const changed: ChangedRule[] = [];
  let unchangedCount = 0;
  for (const rule of [...to].sort(byPriority)) {
    const old = before.get(rule.priority);
    if (!old) continue;
    const fields = changedFields(old, rule);
    if (fields.length === 0) unchangedCount++;
    else changed.push({ priority: rule.priority, before: old, after: rule, fields });
  }
  return { added, removed, changed, unchangedCount };
}
