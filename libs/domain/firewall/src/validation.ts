import { isIP } from 'node:net';
import {
  FirewallRule,
  Layer4Config,
  MAX_PRIORITY,
  MIN_PRIORITY,
  NAMED_PROTOCOLS,
  PORTED_PROTOCOLS,
  PolicyContent,
} from './model';

export interface FieldViolation {
  field: string;
  description: string;
}

const RULE_FIELDS = new Set([
  'priority',
  'direction',
  'action',
  'match',
  'targetTags',
  'description',
  'disabled',
]);
const MATCH_FIELDS = new Set(['srcIpRanges', 'destIpRanges', 'layer4Configs']);
const POLICY_FIELDS = new Set(['displayName', 'description', 'rules']);
/** Read-only fields a client may echo back; they are ignored, as AIP-203 says. */
const OUTPUT_ONLY = new Set(['name', 'etag', 'createTime', 'updateTime']);
const MAX_RULES = 1_000;
const MAX_LIST = 256;
const TAG = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An IPv4/IPv6 address or CIDR range ("10.0.0.0/8", "2001:db8::/32", "192.0.2.7"). */
export function isIpRange(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 64) return false;
  const [address, prefix, extra] = value.split('/');
  if (extra !== undefined) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

function portRangeProblem(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value) : null;
  if (!match) return 'must be a port ("443") or a range ("8000-8080")';
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low > 65535 || high > 65535) return 'ports are 0-65535';
  if (low > high) return 'a range must go from low to high';
  return undefined;
}

class Collector {
  readonly violations: FieldViolation[] = [];
  add(field: string, description: string) {
    if (this.violations.length < 50) this.violations.push({ field, description });
  }
  unknownFields(
    value: Record<string, unknown>,
    allowed: Set<string>,
    path: string,
    ignored = new Set<string>(),
  ) {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key) && !ignored.has(key)) this.add(`${path}.${key}`, 'unknown field');
    }
  }
  stringList(
    value: unknown,
    path: string,
    check: (item: unknown) => string | undefined,
  ): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return (void this.add(path, 'must be a list'), undefined);
    if (value.length > MAX_LIST)
      return (void this.add(path, `at most ${MAX_LIST} items`), undefined);
    value.forEach((item, i) => {
      const problem = check(item);
      if (problem) this.add(`${path}[${i}]`, problem);
    });
    return value as string[];
  }
}

function layer4(value: unknown, path: string, out: Collector): Layer4Config | undefined {
  if (!isObject(value)) return (void out.add(path, 'must be an object'), undefined);
  out.unknownFields(value, new Set(['ipProtocol', 'ports']), path);
  const protocol = value.ipProtocol;
  const known =
    typeof protocol === 'string' &&
    (NAMED_PROTOCOLS.has(protocol) || (/^\d{1,3}$/.test(protocol) && Number(protocol) <= 255));
  if (!known)
    out.add(
      `${path}.ipProtocol`,
      'must be tcp, udp, icmp, icmpv6, sctp, esp, ah, all or a number 0-255',
    );
  const ports = out.stringList(value.ports, `${path}.ports`, portRangeProblem);
  if (ports?.length && known && !PORTED_PROTOCOLS.has(protocol as string)) {
    out.add(`${path}.ports`, 'ports apply only to tcp, udp and sctp');
  }
  return { ipProtocol: String(protocol), ...(ports ? { ports } : {}) };
}

function rule(value: unknown, path: string, out: Collector): FirewallRule | undefined {
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
  const tags = out.stringList(targetTags, `${path}.targetTags`, (t) =>
    typeof t === 'string' && TAG.test(t) ? undefined : 'must be a lower-case tag',
  );
  const matchValue = match ?? {};
  if (!isObject(matchValue)) return (void out.add(`${path}.match`, 'must be an object'), undefined);
  out.unknownFields(matchValue, MATCH_FIELDS, `${path}.match`);
  const range = (r: unknown) =>
    isIpRange(r) ? undefined : 'must be an IPv4 or IPv6 address or CIDR range';
  const src = out.stringList(matchValue.srcIpRanges, `${path}.match.srcIpRanges`, range);
  const dest = out.stringList(matchValue.destIpRanges, `${path}.match.destIpRanges`, range);
  let l4: Layer4Config[] | undefined;
  if (matchValue.layer4Configs !== undefined) {
    if (!Array.isArray(matchValue.layer4Configs))
      out.add(`${path}.match.layer4Configs`, 'must be a list');
    else
      l4 = matchValue.layer4Configs
        .map((c, i) => layer4(c, `${path}.match.layer4Configs[${i}]`, out)!)
        .filter(Boolean);
  }
  return {
    priority: priority as number,
    direction: direction as FirewallRule['direction'],
    action: action as FirewallRule['action'],
    match: {
      ...(src ? { srcIpRanges: src } : {}),
      ...(dest ? { destIpRanges: dest } : {}),
      ...(l4 ? { layer4Configs: l4 } : {}),
    },
    ...(tags ? { targetTags: tags } : {}),
    ...(description !== undefined ? { description: description as string } : {}),
    ...(disabled !== undefined ? { disabled: disabled as boolean } : {}),
  };
}

/**
 * Checks a policy as a user wrote it, wherever it appears (live, or inside an experiment):
 * every problem is reported with its field path; output-only fields are ignored.
 */
export function validatePolicyContent(
  input: unknown,
  path: string,
): { content?: PolicyContent; violations: FieldViolation[] } {
  const out = new Collector();
  if (!isObject(input)) {
    out.add(path, 'must be an object');
    return { violations: out.violations };
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
  if (out.violations.length) return { violations: out.violations };
  return {
    content: {
      ...(displayName !== undefined ? { displayName: displayName as string } : {}),
      ...(description !== undefined ? { description: description as string } : {}),
      rules,
    },
    violations: [],
  };
}
