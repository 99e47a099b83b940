/**
 * Both address families share one line (IPv4 first) because a rule's range list may mix them;
 * protocol and port share one because a rule's ports are listed under a protocol.
 */
import { type AnalysisLayer4, type Layer4Config, protocolNameOf } from '@rollout/contracts';
import { parseRange } from '../engine/address';
import { NO_PORT } from '../engine/connection';
import { portRange, ruleProtocol } from '../engine/tables';

export interface Interval {
  first: bigint;
  /** Inclusive. */
  last: bigint;
}

/** IPv4 address a is key a; IPv6 address a is key V6_BASE + a. */
export const V6_BASE = 1n << 32n;
export const ADDRESS_END = V6_BASE + (1n << 128n);
/**
 * IPv6 keys no connection has (IPv4-mapped addresses read as IPv4, see parseAddressInto). Regions
 * may include them where that saves CIDR blocks, but never list a block inside them.
 */
export const UNREACHABLE: Interval = {
  first: V6_BASE + (0xffffn << 32n),
  last: V6_BASE + (0xffffn << 32n) + 0xffffffffn,
};

/** Address intervals that touch the unreachable keys, extended over them: fewer CIDR blocks, the same connections. */
export function bridgeUnreachable(intervals: readonly Interval[]): Interval[] {
  const touches = intervals.some(
    (i) => i.last === UNREACHABLE.first - 1n || i.first === UNREACHABLE.last + 1n,
  );
  return touches ? normalize([...intervals, UNREACHABLE]) : [...intervals];
}

/** Port keys per protocol: 0-65535, then NO_PORT (a connection without a destination port). */
export const PORT_KEYS = BigInt(NO_PORT + 1);
export const LAYER4_END = 256n * PORT_KEYS;

export const fullLine = (end: bigint): Interval[] => [{ first: 0n, last: end - 1n }];

/** An empty list matches every address, as in the engine; a range that does not parse matches nothing. */
export function addressIntervals(ranges: readonly string[] | undefined): Interval[] {
  if (!ranges || ranges.length === 0) return fullLine(ADDRESS_END);
  const intervals: Interval[] = [];
  for (const text of ranges) {
    const range = parseRange(text);
    if (!range) continue;
    const base = range.family === 4 ? 0n : V6_BASE;
    intervals.push({ first: base + range.first, last: base + range.last });
  }
  return normalize(intervals);
}

/** A protocol without ports matches all its port keys, connections without a port included. */
export function layer4Intervals(configs: readonly Layer4Config[] | undefined): Interval[] {
  if (!configs || configs.length === 0) return fullLine(LAYER4_END);
  const intervals: Interval[] = [];
  for (const config of configs) {
    const protocol = ruleProtocol(config.ipProtocol);
    if (protocol === 'all') return fullLine(LAYER4_END);
    if (protocol === undefined) continue;
    const base = BigInt(protocol) * PORT_KEYS;
    if (!config.ports || config.ports.length === 0) {
      intervals.push({ first: base, last: base + PORT_KEYS - 1n });
      continue;
    }
    for (const text of config.ports) {
      const range = portRange(text);
      if (range) intervals.push({ first: base + BigInt(range[0]), last: base + BigInt(range[1]) });
    }
  }
  return normalize(intervals);
}

export function normalize(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) =>
    a.first < b.first ? -1 : a.first > b.first ? 1 : 0,
  );
  const merged: Interval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && interval.first <= last.last + 1n) {
      if (interval.last > last.last)
        merged[merged.length - 1] = { first: last.first, last: interval.last };
    } else merged.push(interval);
  }
  return merged;
}

export const covers = (intervals: readonly Interval[], key: bigint) =>
  intervals.some((i) => key >= i.first && key <= i.last);

export const intervalsKey = (intervals: readonly Interval[]) =>
  intervals.map((i) => `${i.first.toString(16)}-${i.last.toString(16)}`).join(',');

function ipv4Text(value: bigint): string {
  const n = Number(value);
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** RFC 5952 text: lower-case hex, no leading zeros, the longest run of two or more zero groups as "::". */
function ipv6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, g) =>
    Number((value >> BigInt(112 - 16 * g)) & 0xffffn),
  );
  let bestStart = -1;
  let bestLength = 1;
  for (let g = 0; g < 8;) {
    if (groups[g] !== 0) {
      g++;
      continue;
    }
    let end = g;
    while (end < 8 && groups[end] === 0) end++;
    if (end - g > bestLength) {
      bestStart = g;
      bestLength = end - g;
    }
    g = end;
  }
  const hex = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

const bitLength = (value: bigint) => value.toString(2).length;

/** The fewest CIDR blocks covering exactly [first, last] of one family, minus those `skip` rejects. */
function cidrsOf(
  first: bigint,
  last: bigint,
  bits: number,
  text: (value: bigint) => string,
  out: string[],
  skip: (first: bigint, last: bigint) => boolean,
) {
  let start = first;
  while (start <= last) {
    // The block is as large as the alignment of its start and the length left both allow.
    const aligned = start === 0n ? bits : bitLength(start & -start) - 1;
    const size = Math.min(aligned, bitLength(last - start + 1n) - 1);
    const end = start + (1n << BigInt(size)) - 1n;
    if (!skip(start, end)) out.push(`${text(start)}/${bits - size}`);
    start = end + 1n;
  }
}

const insideUnreachable = (first: bigint, last: bigint) =>
  first + V6_BASE >= UNREACHABLE.first && last + V6_BASE <= UNREACHABLE.last;

export function toCidrs(intervals: readonly Interval[]): string[] {
  const out: string[] = [];
  for (const { first, last } of intervals) {
    if (first < V6_BASE)
      cidrsOf(first, last < V6_BASE ? last : V6_BASE - 1n, 32, ipv4Text, out, () => false);
    if (last >= V6_BASE)
      cidrsOf(
        (first > V6_BASE ? first : V6_BASE) - V6_BASE,
        last - V6_BASE,
        128,
        ipv6Text,
        out,
        insideUnreachable,
      );
  }
  return out;
}

/** Protocol numbers as names where they have one, other numbers as runs ("18-49"); every protocol is `all`. */
function protocolTexts(protocols: readonly number[]): string[] {
  if (protocols.length === 256) return ['all'];
  const out: string[] = [];
  let runStart = -1;
  let previous = -2;
  const closeRun = () => {
    if (runStart >= 0)
      out.push(runStart === previous ? String(runStart) : `${runStart}-${previous}`);
    runStart = -1;
  };
  for (const p of protocols) {
    const name = protocolNameOf(p);
    if (name !== undefined || p !== previous + 1) closeRun();
    if (name !== undefined) out.push(name);
    else if (runStart < 0) runStart = p;
    previous = p;
  }
  closeRun();
  return out;
}

export function toLayer4(intervals: readonly Interval[]): AnalysisLayer4[] {
  // Port keys by protocol: each interval (sorted) cut at protocol bounds, so protocols come in order.
  const portsByProtocol = new Map<number, Interval[]>();
  for (const { first, last } of intervals) {
    for (let p = Number(first / PORT_KEYS); p <= Number(last / PORT_KEYS); p++) {
      const base = BigInt(p) * PORT_KEYS;
      const top = base + PORT_KEYS - 1n;
      const ports = portsByProtocol.get(p) ?? [];
      ports.push({
        first: (first > base ? first : base) - base,
        last: (last < top ? last : top) - base,
      });
      portsByProtocol.set(p, ports);
    }
  }
  const byPorts = new Map<string, { protocols: number[]; ports: Interval[] }>();
  for (const [p, ports] of portsByProtocol) {
    const key = intervalsKey(ports);
    const entry = byPorts.get(key);
    if (entry) entry.protocols.push(p);
    else byPorts.set(key, { protocols: [p], ports });
  }
  const noPort = BigInt(NO_PORT);
  return [...byPorts.values()].map(({ protocols, ports }) => {
    const ipProtocols = protocolTexts(protocols);
    if (ports.length === 1 && ports[0].first === 0n && ports[0].last === noPort)
      return { ipProtocols };
    const texts = ports
      .filter((r) => r.first < noPort)
      .map((r) => {
        const last = r.last < noPort ? r.last : noPort - 1n;
        return r.first === last ? `${r.first}` : `${r.first}-${last}`;
      });
    return { ipProtocols, ports: texts, ...(covers(ports, noPort) ? { portless: true } : {}) };
  });
}
