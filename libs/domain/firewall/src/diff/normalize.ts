import { type FirewallRule, protocolNameOf } from '@rollout/contracts';
import {
  LAYER4_END,
  PORT_KEYS,
  addressIntervals,
  layer4Intervals,
  toCidrs,
} from '../analysis/space';
import { NO_PORT } from '../engine/connection';

/**
 * A rule's fields as a reviewer compares them: two rules that match the same connections the
 * same way have the same normal form, however they were written. List fields are sets (sorted
 * text, no duplicates); address ranges are the CIDR blocks of the addresses they cover (so
 * `10.0.0.0/9` + `10.128.0.0/9` is `10.0.0.0/8`, and an absent list is every address);
 * protocols are named where they have a name (`"6"` is `tcp`) and listed with their ports
 * (`tcp/22`, `tcp/8000-8080`, `tcp` for every port, `all`); a field set to its default
 * (`disabled: false`, `targetTags: []`, an empty description) is absent.
 */
export type NormalRule = Map<string, string | string[]>;

const EVERY_ADDRESS = toCidrs(addressIntervals(undefined));

/** Address ranges as the CIDR blocks they cover, sorted (absent or empty: every address). */
export function normalRanges(ranges: readonly string[] | undefined): string[] {
  if (!ranges || ranges.length === 0) return EVERY_ADDRESS;
  return toCidrs(addressIntervals(ranges));
}

const protocolText = (protocol: number) => protocolNameOf(protocol) ?? String(protocol);

/** Layer-4 configs as `proto` / `proto/ports` texts, in protocol then port order (absent: `all`). */
export function normalLayer4(configs: FirewallRule['match']['layer4Configs']): string[] {
  const intervals = layer4Intervals(configs);
  if (intervals.length === 1 && intervals[0].first === 0n && intervals[0].last === LAYER4_END - 1n)
    return ['all'];
  const out: string[] = [];
  const everyPortKey = PORT_KEYS - 1n;
  for (const { first, last } of intervals) {
    for (let p = first / PORT_KEYS; p <= last / PORT_KEYS; p++) {
      const base = p * PORT_KEYS;
      const low = (first > base ? first : base) - base;
      const high = (last < base + everyPortKey ? last : base + everyPortKey) - base;
      const name = protocolText(Number(p));
      if (low === 0n && high === everyPortKey) out.push(name);
      else {
        // A listed port range never takes in the key of connections without a port.
        const top = high < BigInt(NO_PORT) ? high : BigInt(NO_PORT) - 1n;
        out.push(low === top ? `${name}/${low}` : `${name}/${low}-${top}`);
      }
    }
  }
  return out;
}

const sortedSet = (values: readonly string[]) => [...new Set(values)].sort();

/** The rule's fields but its priority (the diff's key), by dotted path, in normal form. */
export function normalizeRule(rule: FirewallRule): NormalRule {
  const fields: NormalRule = new Map();
  fields.set('action', rule.action);
  fields.set('direction', rule.direction);
  if (rule.description) fields.set('description', rule.description);
  if (rule.disabled === true) fields.set('disabled', 'true');
  const tags = sortedSet(rule.targetTags ?? []);
  if (tags.length) fields.set('targetTags', tags);
  fields.set('match.srcIpRanges', normalRanges(rule.match?.srcIpRanges));
  fields.set('match.destIpRanges', normalRanges(rule.match?.destIpRanges));
  fields.set('match.layer4Configs', normalLayer4(rule.match?.layer4Configs));
  // A field the model gains later is compared as written until it gets a normal form here.
  for (const [key, value] of Object.entries(rule)) {
    if (KNOWN_RULE_FIELDS.has(key) || value === undefined) continue;
    fields.set(key, JSON.stringify(value));
  }
  for (const [key, value] of Object.entries(rule.match ?? {})) {
    if (KNOWN_MATCH_FIELDS.has(key) || value === undefined) continue;
    fields.set(`match.${key}`, JSON.stringify(value));
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
const KNOWN_MATCH_FIELDS = new Set(['srcIpRanges', 'destIpRanges', 'layer4Configs']);
