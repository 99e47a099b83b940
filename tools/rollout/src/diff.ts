import { canonicalJson } from '@rollout/contracts';
import type { FirewallRule, Layer4Config } from '@rollout/contracts';
import { NormalisedPolicy, normalisePolicy } from './policy-file';

/** Both sides are normalised first, so an equal policy written another way is no change. */
export type ChangeKind = 'added' | 'removed' | 'changed';

export interface ElementChange {
  kind: ChangeKind;
  element: string;
  /** "all" = every port. */
  portsAdded?: string[];
  portsRemoved?: string[];
}

export interface FieldChange {
  field: string;
  kind: ChangeKind;
  before?: unknown;
  after?: unknown;
  elements?: ElementChange[];
}

export interface RuleChange {
  priority: number;
  kind: ChangeKind;
  before?: FirewallRule;
  after?: FirewallRule;
  fields: FieldChange[];
}

export interface ResourceDiff {
  fields: FieldChange[];
  rules: RuleChange[];
  unchangedRules: number;
  summary: DiffSummary;
}

export interface DiffSummary {
  rulesAdded: number;
  rulesChanged: number;
  rulesRemoved: number;
  policyFieldsChanged: number;
}

const LIST_FIELDS = [
  'targetTags',
  'match.srcIpRanges',
  'match.destIpRanges',
  'match.srcSecureTags',
];
const RULE_FIELD_ORDER = [
  'description',
  'direction',
  'action',
  'disabled',
  'targetTags',
  'match.srcIpRanges',
  'match.destIpRanges',
  'match.layer4Configs',
  'match.srcSecureTags',
];

function ruleFields(rule: FirewallRule): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  const flat: Record<string, unknown> = {
    description: rule.description,
    direction: rule.direction,
    action: rule.action,
    disabled: rule.disabled,
    targetTags: rule.targetTags,
    'match.srcIpRanges': rule.match.srcIpRanges,
    'match.destIpRanges': rule.match.destIpRanges,
    'match.layer4Configs': rule.match.layer4Configs,
    'match.srcSecureTags': rule.match.srcSecureTags?.map((tag) => tag.name),
  };
  for (const name of RULE_FIELD_ORDER) if (flat[name] !== undefined) fields.set(name, flat[name]);
  return fields;
}

function setChanges(before: readonly string[], after: readonly string[]): ElementChange[] {
  const a = new Set(before);
  const b = new Set(after);
  return [
    ...before.filter((x) => !b.has(x)).map((element) => ({ kind: 'removed' as const, element })),
    ...after.filter((x) => !a.has(x)).map((element) => ({ kind: 'added' as const, element })),
  ];
}

const portsOf = (config: Layer4Config) => config.ports ?? ['all'];

export function layer4Changes(
  before: readonly Layer4Config[],
  after: readonly Layer4Config[],
): ElementChange[] {
  const a = new Map(before.map((c) => [c.ipProtocol, c]));
  const b = new Map(after.map((c) => [c.ipProtocol, c]));
  const changes: ElementChange[] = [];
  for (const [protocol, config] of a)
    if (!b.has(protocol))
      changes.push({ kind: 'removed', element: protocol, portsRemoved: portsOf(config) });
  for (const [protocol, config] of b) {
    const old = a.get(protocol);
    if (!old) {
      changes.push({ kind: 'added', element: protocol, portsAdded: portsOf(config) });
      continue;
    }
    const ports = setChanges(portsOf(old), portsOf(config));
    if (ports.length)
      changes.push({
        kind: 'changed',
        element: protocol,
        portsAdded: ports.filter((p) => p.kind === 'added').map((p) => p.element),
        portsRemoved: ports.filter((p) => p.kind === 'removed').map((p) => p.element),
      });
  }
  return changes;
}

function fieldChange(field: string, before: unknown, after: unknown): FieldChange | undefined {
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return undefined;
  const kind: ChangeKind =
    before === undefined ? 'added' : after === undefined ? 'removed' : 'changed';
  const change: FieldChange = {
    field,
    kind,
    ...(before !== undefined ? { before } : {}),
    ...(after !== undefined ? { after } : {}),
  };
  if (LIST_FIELDS.includes(field))
    change.elements = setChanges((before as string[]) ?? [], (after as string[]) ?? []);
  if (field === 'match.layer4Configs')
    change.elements = layer4Changes(
      (before as Layer4Config[]) ?? [],
      (after as Layer4Config[]) ?? [],
    );
  return change;
}

function ruleChange(before?: FirewallRule, after?: FirewallRule): RuleChange | undefined {
  const a = before ? ruleFields(before) : new Map<string, unknown>();
  const b = after ? ruleFields(after) : new Map<string, unknown>();
  const fields = RULE_FIELD_ORDER.map((name) => fieldChange(name, a.get(name), b.get(name))).filter(
    (change): change is FieldChange => change !== undefined,
  );
  if (before && after && fields.length === 0) return undefined;
  return {
    priority: (after ?? before)!.priority,
    kind: !before ? 'added' : !after ? 'removed' : 'changed',
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    fields,
  };
}

export function diffPolicies(from: NormalisedPolicy, to: NormalisedPolicy): ResourceDiff {
  const a = normalisePolicy(from);
  const b = normalisePolicy(to);
  const fields = (['displayName', 'description'] as const)
    .map((name) => fieldChange(name, a[name], b[name]))
    .filter((change): change is FieldChange => change !== undefined);
  const before = new Map(a.rules.map((rule) => [rule.priority, rule]));
  const after = new Map(b.rules.map((rule) => [rule.priority, rule]));
  const priorities = [...new Set([...before.keys(), ...after.keys()])].sort((x, y) => x - y);
  const rules: RuleChange[] = [];
  let unchangedRules = 0;
  for (const priority of priorities) {
    const change = ruleChange(before.get(priority), after.get(priority));
    if (change) rules.push(change);
    else unchangedRules++;
  }
  const count = (kind: ChangeKind) => rules.filter((r) => r.kind === kind).length;
  return {
    fields,
    rules,
    unchangedRules,
    summary: {
      rulesAdded: count('added'),
      rulesChanged: count('changed'),
      rulesRemoved: count('removed'),
      policyFieldsChanged: fields.length,
    },
  };
}

export const hasChanges = (diff: ResourceDiff) => diff.fields.length > 0 || diff.rules.length > 0;
