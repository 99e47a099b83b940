import { PROTOCOL_NUMBERS } from '@rollout/contracts';
import type { FirewallRule, Layer4Config, PolicyContent, RuleMatch } from '@rollout/contracts';
import { parse, stringify } from 'yaml';
import { CliError } from './gateway';

/** Normalised so equal policies give the same text; whether a CIDR or port is valid is the service's to say. */
export const POLICY_KIND = 'FirewallPolicy';

/** A policy file is at most this big: the gateway takes request bodies of at most 1 MiB. */
export const MAX_POLICY_FILE_BYTES = 2 * 1024 * 1024;

export interface NormalisedPolicy {
  displayName?: string;
  description?: string;
  rules: FirewallRule[];
}

export interface PolicyFile {
  name?: string;
  policy: NormalisedPolicy;
}

const TOP_FIELDS = ['kind', 'name', 'displayName', 'description', 'rules'];
const RULE_FIELDS = [
  'priority',
  'description',
  'direction',
  'action',
  'disabled',
  'targetTags',
  'match',
];
const MATCH_FIELDS = ['srcIpRanges', 'destIpRanges', 'layer4Configs', 'srcSecureTags'];
/** GCP's `state` is output only: a file exported from GCP may carry it, and it is dropped. */
const SECURE_TAG_FIELDS = ['name', 'state'];
const L4_FIELDS = ['ipProtocol', 'ports'];

const PROTOCOL_NAMES = new Map<string, string>(
  Object.entries(PROTOCOL_NUMBERS).map(([name, number]) => [String(number), name]),
);

export function normaliseProtocol(protocol: string): string {
  const lower = protocol.trim().toLowerCase();
  const number = /^\d+$/.test(lower) ? String(Number(lower)) : lower;
  return PROTOCOL_NAMES.get(number) ?? number;
}

const portStart = (port: string) => Number(port.split('-')[0]);
const sortPorts = (ports: Iterable<string>) =>
  [
    ...new Set(
      [...ports].map((p) => p.trim()).map((p) => (/^(\d+)-\1$/.test(p) ? p.split('-')[0] : p)),
    ),
  ].sort((a, b) => portStart(a) - portStart(b) || (a < b ? -1 : a > b ? 1 : 0));
const sortSet = (values: Iterable<string>) =>
  [...new Set([...values].map((v) => v.trim().toLowerCase()))].sort();

/**
 * One entry per protocol, ports sorted as a set; an entry without ports (every port) absorbs
 * the others of its protocol, since together they match what it matches alone.
 */
export function normaliseLayer4(configs: readonly Layer4Config[]): Layer4Config[] {
  const byProtocol = new Map<string, Set<string> | 'all'>();
  for (const config of configs) {
    const protocol = normaliseProtocol(config.ipProtocol);
    const ports = config.ports ?? [];
    const known = byProtocol.get(protocol);
    if (ports.length === 0 || known === 'all') byProtocol.set(protocol, 'all');
    else byProtocol.set(protocol, new Set([...(known ?? []), ...ports]));
  }
  return [...byProtocol.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([ipProtocol, ports]) =>
      ports === 'all' ? { ipProtocol } : { ipProtocol, ports: sortPorts(ports) },
    );
}

export function normaliseRule(rule: FirewallRule): FirewallRule {
  const match: RuleMatch = {};
  const src = sortSet(rule.match?.srcIpRanges ?? []);
  const dest = sortSet(rule.match?.destIpRanges ?? []);
  const l4 = normaliseLayer4(rule.match?.layer4Configs ?? []);
  if (src.length) match.srcIpRanges = src;
  if (dest.length) match.destIpRanges = dest;
  if (l4.length) match.layer4Configs = l4;
  // Tag values and workload labels are case-sensitive: sorted and deduplicated, never lowered.
  const secureTags = [
    ...new Set((rule.match?.srcSecureTags ?? []).map((tag) => tag.name.trim())),
  ].sort();
  if (secureTags.length) match.srcSecureTags = secureTags.map((name) => ({ name }));
  const tags = [...new Set((rule.targetTags ?? []).map((t) => t.trim()))].sort();
  return {
    priority: rule.priority,
    ...(rule.description ? { description: rule.description } : {}),
    direction: rule.direction,
    action: rule.action,
    ...(rule.disabled ? { disabled: true } : {}),
    ...(tags.length ? { targetTags: tags } : {}),
    match,
  };
}

export function normalisePolicy(policy: PolicyContent): NormalisedPolicy {
  return {
    ...(policy.displayName ? { displayName: policy.displayName } : {}),
    ...(policy.description ? { description: policy.description } : {}),
    rules: [...(policy.rules ?? [])].map(normaliseRule).sort((a, b) => a.priority - b.priority),
  };
}

export type FileFormat = 'yaml' | 'json';

export function formatPolicyFile(name: string, policy: NormalisedPolicy, format: FileFormat) {
  const document = { kind: POLICY_KIND, name, ...normalisePolicy(policy) };
  if (format === 'json') return `${JSON.stringify(document, null, 2)}\n`;
  return stringify(document, { lineWidth: 0, flowCollectionPadding: false });
}

/** Collected so a user fixes them all at once. */
class Problems {
  readonly list: string[] = [];
  add(path: string, what: string) {
    if (this.list.length < 20) this.list.push(`${path}: ${what}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownFields(value: Record<string, unknown>, known: string[], path: string, p: Problems) {
  for (const key of Object.keys(value))
    if (!known.includes(key)) p.add(path ? `${path}.${key}` : key, 'unknown field');
}

function strings(value: unknown, path: string, p: Problems): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    p.add(path, 'must be a list of strings');
    return [];
  }
  value.forEach((item, i) => {
    if (typeof item !== 'string' && typeof item !== 'number')
      p.add(`${path}[${i}]`, 'must be a string');
  });
  return value.map(String);
}

function optionalString(value: unknown, path: string, p: Problems): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') p.add(path, 'must be a string');
  return typeof value === 'string' ? value : undefined;
}

function parseRule(value: unknown, path: string, p: Problems): FirewallRule | undefined {
  if (!isObject(value)) {
    p.add(path, 'must be a rule (a mapping with priority, direction, action and match)');
    return undefined;
  }
  unknownFields(value, RULE_FIELDS, path, p);
  const { priority, direction, action, disabled, match } = value;
  if (typeof priority !== 'number' || !Number.isInteger(priority))
    p.add(`${path}.priority`, 'required, a whole number');
  if (direction !== 'INGRESS' && direction !== 'EGRESS')
    p.add(`${path}.direction`, 'required, INGRESS or EGRESS');
  if (action !== 'allow' && action !== 'deny') p.add(`${path}.action`, 'required, allow or deny');
  if (disabled !== undefined && typeof disabled !== 'boolean')
    p.add(`${path}.disabled`, 'must be true or false');
  const rule: FirewallRule = {
    priority: priority as number,
    direction: direction as FirewallRule['direction'],
    action: action as FirewallRule['action'],
    match: {},
    description: optionalString(value.description, `${path}.description`, p),
    disabled: disabled === true,
    targetTags: strings(value.targetTags, `${path}.targetTags`, p),
  };
  if (match === undefined || match === null) return rule;
  if (!isObject(match)) {
    p.add(`${path}.match`, 'must be a mapping');
    return rule;
  }
  unknownFields(match, MATCH_FIELDS, `${path}.match`, p);
  rule.match.srcIpRanges = strings(match.srcIpRanges, `${path}.match.srcIpRanges`, p);
  rule.match.destIpRanges = strings(match.destIpRanges, `${path}.match.destIpRanges`, p);
  const l4 = match.layer4Configs ?? [];
  if (!Array.isArray(l4)) p.add(`${path}.match.layer4Configs`, 'must be a list');
  else
    rule.match.layer4Configs = l4.flatMap((config, i) => {
      const at = `${path}.match.layer4Configs[${i}]`;
      if (!isObject(config)) {
        p.add(at, 'must be a mapping with ipProtocol');
        return [];
      }
      unknownFields(config, L4_FIELDS, at, p);
      if (typeof config.ipProtocol !== 'string' && typeof config.ipProtocol !== 'number') {
        p.add(`${at}.ipProtocol`, 'required, a protocol name or number');
        return [];
      }
      return [
        { ipProtocol: String(config.ipProtocol), ports: strings(config.ports, `${at}.ports`, p) },
      ];
    });
  const secureTags = match.srcSecureTags ?? [];
  if (!Array.isArray(secureTags)) p.add(`${path}.match.srcSecureTags`, 'must be a list');
  else
    rule.match.srcSecureTags = secureTags.flatMap((tag, i) => {
      const at = `${path}.match.srcSecureTags[${i}]`;
      if (!isObject(tag) || typeof tag.name !== 'string') {
        p.add(at, 'must be a mapping with name (tagValues/… or a workload label)');
        return [];
      }
      unknownFields(tag, SECURE_TAG_FIELDS, at, p);
      return [{ name: tag.name }];
    });
  return rule;
}

/** Unknown fields are refused (a typo must not silently drop a condition), and so are two rules of one priority. */
export function parsePolicyFile(text: string, source: string): PolicyFile {
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError(`${source} is not YAML or JSON: ${reason}`);
  }
  if (!isObject(document) || (document.kind !== POLICY_KIND && !Array.isArray(document.rules)))
    throw new CliError(
      `${source} is not a firewall policy: expected a mapping with kind: ${POLICY_KIND} and rules (rollout export writes one).`,
    );
  const p = new Problems();
  if (document.kind !== undefined && document.kind !== POLICY_KIND)
    p.add('kind', `must be ${POLICY_KIND}`);
  unknownFields(document, TOP_FIELDS, '', p);
  const name = optionalString(document.name, 'name', p);
  const rulesValue = document.rules ?? [];
  if (!Array.isArray(rulesValue)) p.add('rules', 'must be a list of rules');
  const rules = (Array.isArray(rulesValue) ? rulesValue : [])
    .map((rule, i) => parseRule(rule, `rules[${i}]`, p))
    .filter((rule): rule is FirewallRule => rule !== undefined);
  const seen = new Map<number, number>();
  rules.forEach((rule, i) => {
    const first = seen.get(rule.priority);
    if (first !== undefined)
      p.add(`rules[${i}].priority`, `${rule.priority} is also the priority of rules[${first}]`);
    else if (typeof rule.priority === 'number') seen.set(rule.priority, i);
  });
  const content: PolicyContent = {
    displayName: optionalString(document.displayName, 'displayName', p),
    description: optionalString(document.description, 'description', p),
    rules,
  };
  if (p.list.length)
    throw new CliError(`${source} is not a valid policy file: ${p.list.join('; ')}`);
  return { ...(name ? { name } : {}), policy: normalisePolicy(content) };
}

export async function readPolicyFile(path: string): Promise<PolicyFile> {
  const { readFile, stat } = await import('node:fs/promises');
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  if (size > MAX_POLICY_FILE_BYTES)
    throw new CliError(
      `${path} is ${(size / 1024 / 1024).toFixed(1)} MiB; a policy file is at most ${MAX_POLICY_FILE_BYTES / 1024 / 1024} MiB (the gateway takes bodies of at most 1 MiB).`,
    );
  return parsePolicyFile(await readFile(path, 'utf8'), path);
}
