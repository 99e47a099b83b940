/**
 * Property test: the compiled engine decides exactly as a plain reference implementation of
 * the spec (a first-match scan with BigInt CIDR arithmetic) over thousands of seeded random
 * policies and connections. Rules and traffic are drawn from small address and port spaces so
 * that ranges overlap, nest and touch, and matches happen at every depth of the rule list.
 */
import { isIP } from 'node:net';
import { FirewallRule, Layer4Config, RULE_PROTOCOL_NUMBERS } from '../model';
import { compilePolicy, Connection, parseConnection, Verdict } from '.';
import { Rng, prng } from '@rollout/testing/kit';

// ---- reference implementation, written straight from the spec -------------------------------

// Memoised only to keep the test fast; the functions stay plain.
const addressCache = new Map<string, { family: 4 | 6; value: bigint } | undefined>();
function referenceAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  if (!addressCache.has(text)) addressCache.set(text, parseReferenceAddress(text));
  return addressCache.get(text);
}

function parseReferenceAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  const bare = text.split('%')[0];
  const family = isIP(text);
  if (family === 4)
    return { family, value: bare.split('.').reduce((v, o) => (v << 8n) | BigInt(o), 0n) };
  if (family !== 6) return undefined;
  let body = bare;
  const tail = body.lastIndexOf(':');
  if (body.slice(tail + 1).includes('.')) {
    const v4 = referenceAddress(body.slice(tail + 1))!.value;
    body = `${body.slice(0, tail + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = body.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return { family, value: groups.reduce((v, g) => (v << 16n) | BigInt(`0x${g}`), 0n) };
}

const rangeCache = new Map<string, { family: 4 | 6; shift: bigint; network: bigint }>();
function inRange(address: { family: 4 | 6; value: bigint }, range: string): boolean {
  let parsed = rangeCache.get(range);
  if (!parsed) {
    const [net, prefix] = range.split('/');
    const { family, value } = referenceAddress(net)!;
    const bits = family === 4 ? 32 : 128;
    const shift = BigInt(bits - (prefix === undefined ? bits : Number(prefix)));
    parsed = { family, shift, network: value >> shift };
    rangeCache.set(range, parsed);
  }
  return parsed.family === address.family && address.value >> parsed.shift === parsed.network;
}

const protocolNumber = (p: string | number): number | 'all' =>
  typeof p === 'number' ? p : p in RULE_PROTOCOL_NUMBERS ? RULE_PROTOCOL_NUMBERS[p] : Number(p);

function l4Matches(config: Layer4Config, connection: Connection): boolean {
  const ruleProtocol = protocolNumber(config.ipProtocol);
  if (ruleProtocol !== 'all' && ruleProtocol !== protocolNumber(connection.protocol)) return false;
  if (!config.ports?.length) return true;
  return config.ports.some((r) => {
    const [low, high = low] = r.split('-').map(Number);
    return (
      connection.destPort !== undefined && connection.destPort >= low && connection.destPort <= high
    );
  });
}

/** A traffic address as the spec reads it: an IPv4-mapped IPv6 address (::ffff:0:0/96) is its IPv4 address. */
function trafficAddress(text: string): { family: 4 | 6; value: bigint } {
  const address = referenceAddress(text)!;
  return address.family === 6 && address.value >> 32n === 0xffffn
    ? { family: 4, value: address.value & 0xffffffffn }
    : address;
}

const sortedCache = new WeakMap<readonly FirewallRule[], FirewallRule[]>();
function reference(rules: readonly FirewallRule[], connection: Connection): Verdict {
  const src = trafficAddress(connection.srcIp);
  const dest = trafficAddress(connection.destIp);
  if (!sortedCache.has(rules))
    sortedCache.set(
      rules,
      [...rules].sort((a, b) => a.priority - b.priority),
    );
  const ordered = sortedCache.get(rules)!;
  for (const rule of ordered) {
    if (rule.disabled || rule.direction !== connection.direction) continue;
    const m = rule.match;
    if (m.srcIpRanges?.length && !m.srcIpRanges.some((r) => inRange(src, r))) continue;
    if (m.destIpRanges?.length && !m.destIpRanges.some((r) => inRange(dest, r))) continue;
    if (m.layer4Configs?.length && !m.layer4Configs.some((c) => l4Matches(c, connection))) continue;
    if (rule.targetTags?.length && !rule.targetTags.some((t) => connection.targetTags?.includes(t)))
      continue;
    if (
      m.srcSecureTags?.length &&
      !m.srcSecureTags.some((t) => connection.srcSecureTags?.includes(t.name))
    )
      continue;
    return { action: rule.action, rulePriority: rule.priority, implied: false };
  }
  return connection.direction === 'INGRESS'
    ? { action: 'deny', rulePriority: null, implied: true }
    : { action: 'allow', rulePriority: null, implied: true };
}

// ---- seeded generators ------------------------------------------------------------------------

// Rules and traffic draw from small spaces (4,096 v4 and v6 addresses; ports 0-40) so that
// random ranges overlap, nest and touch; large policies spread over 65,536 addresses.
let spread = 16;
// Most IPv4 traffic is in 10.0/16; the rest sits at the edges of the space (0/8, 127/8,
// 128/8, 255/8), where the radix buckets of the lookups begin and end.
const v4 = (r: Rng) =>
  r.chance(0.8)
    ? `10.0.${r.int(spread)}.${r.int(256)}`
    : `${r.pick([0, 127, 128, 255])}.${r.pick([0, 255])}.${r.int(spread)}.${r.int(256)}`;
const v6 = (r: Rng) => `2001:db8::${r.int(spread * 256).toString(16)}`;

/** broad: some catch-all ranges and wide prefixes; narrow: every rule names a few small networks. */
type Shape = 'broad' | 'narrow';

function range(r: Rng, shape: Shape): string {
  const narrow = shape === 'narrow';
  const roll = r.next();
  if (!narrow && roll < 0.03)
    return r.pick(['0.0.0.0/0', '::/0', '10.0.0.0/8', '2001:db8::/32', '10.0.0.0/20']);
  if (roll < 0.1) return r.chance(0.7) ? v4(r) : v6(r); // a plain address
  if (r.chance(0.7)) return `${v4(r)}/${(narrow ? 26 : 20) + r.int(narrow ? 7 : 13)}`; // host bits set on purpose
  return `${v6(r)}/${(narrow ? 122 : 116) + r.int(narrow ? 7 : 13)}`;
}

const PROTOCOLS = ['tcp', 'udp', 'icmp', 'icmpv6', 'sctp', 'esp', '6', '17', '1', '47', '132'];
const TAGS = ['web', 'db', 'ssh', 'mail'];
// Source tags share names with target tags on purpose: the two dimensions must stay apart.
const SOURCE_TAGS = ['tagValues/1', 'tagValues/2', 'k8s:app=web', 'web'];

function l4(r: Rng): Layer4Config {
  if (r.chance(0.08)) return { ipProtocol: 'all' };
  const ipProtocol = r.pick(PROTOCOLS);
  if (!['tcp', 'udp', 'sctp', '6', '17', '132'].includes(ipProtocol) || r.chance(0.2))
    return { ipProtocol };
  const ports = Array.from({ length: 1 + r.int(3) }, () => {
    if (r.chance(0.1)) return r.pick(['65535', '65530-65535', '0', '0-65535']); // the ends of the port space
    const low = r.int(41);
    return r.chance(0.5) ? String(low) : `${low}-${Math.min(40, low + r.int(10))}`;
  });
  return { ipProtocol, ports };
}

/** A list that is sometimes empty or absent (both mean "all"). */
const list = <T>(r: Rng, pEmpty: number, max: number, item: () => T): T[] | undefined =>
  r.chance(pEmpty)
    ? r.chance(0.5)
      ? []
      : undefined
    : Array.from({ length: 1 + r.int(max) }, item);

function policy(r: Rng, count: number, shape: Shape): FirewallRule[] {
  const priorities = new Set<number>();
  while (priorities.size < count) priorities.add(r.int(65536));
  return [...priorities].map((priority) => {
    const srcIpRanges = list(r, shape === 'narrow' ? 0 : 0.3, 3, () => range(r, shape));
    const destIpRanges = list(r, shape === 'narrow' ? 0.8 : 0.4, 2, () => range(r, shape));
    const layer4Configs = list(r, 0.2, 2, () => l4(r));
    const targetTags = list(r, 0.7, 2, () => r.pick(TAGS));
    const srcSecureTags = list(r, 0.7, 2, () => ({ name: r.pick(SOURCE_TAGS) }));
    return {
      priority,
      direction: r.chance(0.6) ? 'INGRESS' : 'EGRESS',
      action: r.chance(0.5) ? 'allow' : 'deny',
      match: {
        ...(srcIpRanges ? { srcIpRanges } : {}),
        ...(destIpRanges ? { destIpRanges } : {}),
        ...(layer4Configs ? { layer4Configs } : {}),
        ...(srcSecureTags ? { srcSecureTags } : {}),
      },
      ...(targetTags ? { targetTags } : {}),
      ...(r.chance(0.1) ? { disabled: true } : {}),
    };
  });
}

function connection(r: Rng): Connection {
  const family6 = r.chance(0.3);
  const address = () =>
    family6 ? (r.chance(0.05) ? `::ffff:10.0.${r.int(16)}.${r.int(256)}` : v6(r)) : v4(r);
  const tags = Array.from({ length: r.int(4) }, () => r.pick([...TAGS, 'other']));
  const sourceTags = Array.from({ length: r.int(4) }, () => r.pick([...SOURCE_TAGS, 'other']));
  return {
    direction: r.chance(0.6) ? 'INGRESS' : 'EGRESS',
    srcIp: address(),
    // Mixed families on one connection are odd but possible input; the engine must still agree.
    destIp: r.chance(0.05) ? (family6 ? v4(r) : v6(r)) : address(),
    protocol: r.pick(['tcp', 'udp', 'icmp', 'icmpv6', 'sctp', 'esp', 6, 17, 1, 47, 132, '6', '47']),
    ...(r.chance(0.9) ? { destPort: r.chance(0.05) ? 65530 + r.int(6) : r.int(45) } : {}),
    ...(r.chance(0.3) ? { srcPort: r.int(65536) } : {}),
    ...(tags.length ? { targetTags: tags } : r.chance(0.5) ? { targetTags: [] } : {}),
    ...(sourceTags.length ? { srcSecureTags: sourceTags } : {}),
  };
}

// ---- properties -------------------------------------------------------------------------------

/**
 * Compares engine and reference on one seeded policy; returns how many connections a rule
 * decided and the deepest deciding rule (its rank among the enabled rules of its direction),
 * so each test can show that its draw exercised what it claims to.
 */
function agree(seed: number, rules: number, connections: number, shape: Shape, addressSpread = 16) {
  spread = addressSpread;
  const r = prng(seed);
  const rulesList = policy(r, rules, shape);
  const compiled = compilePolicy({ rules: rulesList });
  const rank = (priority: number, direction: string) =>
    rulesList.filter((x) => !x.disabled && x.direction === direction && x.priority < priority)
      .length;
  let decided = 0;
  let deepest = -1;
  for (let i = 0; i < connections; i++) {
    const c = connection(r);
    const expected = reference(rulesList, c);
    const actual = compiled.evaluate(c);
    if (
      actual.rulePriority !== expected.rulePriority ||
      actual.action !== expected.action ||
      actual.implied !== expected.implied
    ) {
      throw new Error(
        `seed ${seed}: ${JSON.stringify(c)}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
      );
    }
    expect(compiled.evaluateParsed(parseConnection(c)!)).toBe(actual);
    if (expected.rulePriority !== null) {
      decided++;
      deepest = Math.max(deepest, rank(expected.rulePriority, c.direction));
    }
  }
  return { decided, deepest };
}

describe('compiled engine against the reference implementation', () => {
  it('agrees on 400 small policies (0-80 rules) × 50 connections', () => {
    let decided = 0;
    for (let seed = 1; seed <= 400; seed++)
      decided += agree(seed, seed % 81, 50, seed % 2 === 0 ? 'broad' : 'narrow').decided;
    // The draw must exercise both outcomes, or agreement proves little.
    expect(decided).toBeGreaterThan(4000);
    expect(decided).toBeLessThan(16000);
  }, 120_000);

  it('agrees on large policies whose bitsets span several aggregate words (1,500 and 3,000 rules)', () => {
    for (const [seed, rules] of [
      [1001, 1500],
      [1002, 3000],
    ]) {
      const { decided, deepest } = agree(seed, rules, 800, 'narrow', 64);
      expect(decided).toBeGreaterThan(80);
      expect(decided).toBeLessThan(720);
      // Deciding rules beyond the first 1,024 of a direction sit behind the second aggregate word.
      if (rules === 3000) expect(deepest).toBeGreaterThan(1024);
    }
    // Broad rules (wildcards, wide prefixes) take the bit-vector path; 4,000 of them fill
    // more than one aggregate word per direction.
    expect(agree(1003, 4000, 400, 'broad', 64).decided).toBeGreaterThan(0);
  }, 120_000);

  it('agrees when every rule is narrow and most traffic falls through to the implied rules', () => {
    let decided = 0;
    for (let seed = 2001; seed <= 2005; seed++)
      decided += agree(seed, 2000, 200, 'narrow', 256).decided;
    expect(decided).toBeGreaterThan(10);
    expect(decided).toBeLessThan(200);
  }, 120_000);
});
