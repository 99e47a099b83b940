import type {
  ChangedRule,
  FirewallRule,
  PolicyContent,
  RewrittenRule,
  RuleFieldChange,
} from '@rollout/contracts';
import { canonicalJson } from '@rollout/contracts';
import { normalizeRule } from './normalize';

/** What two rule lists differ in, matched by priority (unique within a policy). */
export interface StructuralDiff {
  added: FirewallRule[];
  removed: FirewallRule[];
  changed: ChangedRule[];
  unchangedCount: number;
  rewritten: RewrittenRule[];
}

const byPriority = (a: FirewallRule, b: FirewallRule) => a.priority - b.priority;

function writtenFields(rule: FirewallRule): Map<string, unknown> {
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

function elementChanges(
  before: unknown,
  after: unknown,
): Pick<RuleFieldChange, 'removedElements' | 'addedElements'> {
  if (!Array.isArray(before) && !Array.isArray(after)) return {};
  const from = new Set((Array.isArray(before) ? before : []).map(elementText));
  const to = new Set((Array.isArray(after) ? after : []).map(elementText));
  return {
    removedElements: [...from].filter((element) => !to.has(element)),
    addedElements: [...to].filter((element) => !from.has(element)),
  };
}

const elementText = (element: unknown) =>
  typeof element === 'string' ? element : canonicalJson(element);

/** For a list field, also the elements each side alone has, in normal form. */
export function changedFields(before: FirewallRule, after: FirewallRule): RuleFieldChange[] {
  const a = normalizeRule(before);
  const b = normalizeRule(after);
  const writtenA = writtenFields(before);
  const writtenB = writtenFields(after);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  return names
    .filter((name) => canonicalJson(a.get(name) ?? null) !== canonicalJson(b.get(name) ?? null))
    .map((field) => ({
      field,
      ...(writtenA.has(field) ? { before: writtenA.get(field) } : {}),
      ...(writtenB.has(field) ? { after: writtenB.get(field) } : {}),
      ...elementChanges(a.get(field), b.get(field)),
    }));
}

/** A rule that means the same but is written differently is listed in `rewritten`, never in `changed`. */
export function diffRules(
  from: readonly FirewallRule[],
  to: readonly FirewallRule[],
): StructuralDiff {
  const before = new Map(from.map((rule) => [rule.priority, rule]));
  const after = new Map(to.map((rule) => [rule.priority, rule]));
  const added = to.filter((rule) => !before.has(rule.priority)).sort(byPriority);
  const removed = from.filter((rule) => !after.has(rule.priority)).sort(byPriority);
  const changed: ChangedRule[] = [];
  const rewritten: RewrittenRule[] = [];
  let unchangedCount = 0;
  for (const rule of [...to].sort(byPriority)) {
    const old = before.get(rule.priority);
    if (!old) continue;
    const fields = changedFields(old, rule);
    if (fields.length > 0) {
      changed.push({ priority: rule.priority, before: old, after: rule, fields });
      continue;
    }
    unchangedCount++;
    if (canonicalJson(old) !== canonicalJson(rule))
      rewritten.push({ priority: rule.priority, before: old, after: rule });
  }
  return { added, removed, changed, unchangedCount, rewritten };
}

/**
 * Every field but the rules, whatever fields the policy has, so one it gains later is compared
 * with no change here. An empty string is the same as an absent field.
 */
export function diffPolicyFields(from: PolicyContent, to: PolicyContent): RuleFieldChange[] {
  const set = (content: PolicyContent) =>
    new Map(
      Object.entries(content).filter(
        ([key, value]) => key !== 'rules' && value !== undefined && value !== null && value !== '',
      ),
    );
  const a = set(from);
  const b = set(to);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  return names
    .filter((name) => canonicalJson(a.get(name) ?? null) !== canonicalJson(b.get(name) ?? null))
    .map((field) => ({
      field,
      ...(a.has(field) ? { before: a.get(field) } : {}),
      ...(b.has(field) ? { after: b.get(field) } : {}),
      ...elementChanges(a.get(field), b.get(field)),
    }));
}
