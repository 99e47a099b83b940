import { RULE_PROTOCOL_NUMBERS } from '../model';
import { parseRange } from './address';
import { partition, setBit, Span } from './partition';

/** XOR with the sign bit maps unsigned 32-bit order onto signed int32 order, so lookups compare int32s. */
export const SIGN = 0x80000000;
export const V4_SIZE = 2 ** 32;
const V6_END = 1n << 128n;
export const PORT_BITS = 17;
/** Only speed depends on this threshold: it picks the bit-vector group (see DirectionIndex). */
const BROAD_V4 = 2n ** 20n;
const BROAD_V6 = 2n ** 96n;

/**
 * Per elementary interval: its start key (four words for IPv6) and label (broad set offset,
 * narrow offset, list length), sharing a cache line with the search's last step. For IPv4 and
 * ports a radix table narrows the binary search to one bucket.
 */
export interface Lookup {
  readonly entries: Int32Array;
  readonly count: number;
  /** buckets[b] .. buckets[b + 1]: the intervals that can hold a key whose top bits are b. */
  readonly buckets: Int32Array;
  readonly shift: number;
}

export class Labels {
  readonly values: number[] = [];
  /** broad offset → (narrow offset · 2^17 + list length) → label id; numeric keys, no string building. */
  private readonly ids = new Map<number, Map<number, number>>();

  id(broad: number, narrow: number, length: number): number {
    let byNarrow = this.ids.get(broad);
    if (!byNarrow) this.ids.set(broad, (byNarrow = new Map()));
    const key = narrow * 2 ** 17 + length;
    let id = byNarrow.get(key);
    if (id === undefined) {
      id = this.values.length / 3;
      this.values.push(broad, narrow, length);
      byNarrow.set(key, id);
    }
    return id;
  }
}

/**
 * A radix-accelerated lookup over keys of `keyBits` bits, with about one bucket per interval
 * (at most 2^16): its size follows the policy's, and a bucket holds a few intervals.
 */
export function radixLookup(
  p: { starts: readonly number[]; labels: readonly number[] },
  labels: Labels,
  keyBits: number,
  flip: boolean,
): Lookup {
  const { starts } = p;
  const bits = Math.max(1, Math.min(16, keyBits, Math.ceil(Math.log2(starts.length))));
  const shift = keyBits - bits;
  const buckets = new Int32Array(2 ** bits + 1);
  let i = 0;
  for (let b = 0; b < 2 ** bits; b++) {
    const first = b * 2 ** shift;
    while (i + 1 < starts.length && starts[i + 1] <= first) i++;
    buckets[b] = i;
  }
  buckets[2 ** bits] = starts.length - 1;
  const entries = new Int32Array(starts.length * 4);
  starts.forEach((start, k) => {
    entries[k * 4] = flip ? start ^ SIGN : start;
    for (let j = 0; j < 3; j++) entries[k * 4 + 1 + j] = labels.values[p.labels[k] * 3 + j];
  });
  return { entries, count: starts.length, buckets, shift };
}

export function v6Lookup(
  p: { starts: readonly bigint[]; labels: readonly number[] },
  labels: Labels,
): Lookup {
  const entries = new Int32Array(p.starts.length * 8);
  p.starts.forEach((start, k) => {
    for (let w = 0; w < 4; w++)
      entries[k * 8 + w] = Number((start >> BigInt(96 - 32 * w)) & 0xffffffffn) ^ SIGN;
    for (let j = 0; j < 3; j++) entries[k * 8 + 4 + j] = labels.values[p.labels[k] * 3 + j];
  });
  return { entries, count: p.starts.length, buckets: Int32Array.of(0, 0), shift: 0 };
}

export function ruleProtocol(text: string): number | 'all' | undefined {
  const named = Object.prototype.hasOwnProperty.call(RULE_PROTOCOL_NUMBERS, text)
    ? RULE_PROTOCOL_NUMBERS[text]
    : undefined;
  if (named !== undefined) return named;
  return /^\d{1,3}$/.test(text) && Number(text) <= 255 ? Number(text) : undefined;
}

export function portRange(text: string): [number, number] | undefined {
  const m = typeof text === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text) : null;
  if (!m) return undefined;
  const low = Number(m[1]);
  const high = m[2] === undefined ? low : Number(m[2]);
  return low <= high && high <= 65535 ? [low, high] : undefined;
}

export interface WideSpan {
  rule: number;
  first: bigint;
  end: bigint;
}

/** The bounds sort as fixed-width hex text: a native string sort, far cheaper than BigInt compares. */
export function partition6(
  spans: readonly WideSpan[],
  always: Int32Array,
  ruleCount: number,
  label: (set: Int32Array) => number,
) {
  const text = (b: bigint) => b.toString(16).padStart(32, '0');
  const firsts = spans.map((span) => text(span.first));
  const ends = spans.map((span) => (span.end < V6_END ? text(span.end) : ''));
  const distinct = [...new Set([text(0n), ...firsts, ...ends.filter((e) => e !== '')])].sort();
  const rank = new Map(distinct.map((b, i) => [b, i]));
  const ranked: Span[] = spans.map(({ rule }, i) => ({
    rule,
    first: rank.get(firsts[i])!,
    end: ends[i] === '' ? distinct.length : rank.get(ends[i])!,
  }));
  const result = partition(ranked, always, distinct.length, ruleCount, label);
  return { starts: result.starts.map((r) => BigInt(`0x${distinct[r]}`)), labels: result.labels };
}

export interface AddressDimension {
  /** An empty list, or a /0 among the ranges. */
  always4: Int32Array;
  always6: Int32Array;
  spans4: Span[];
  spans6: WideSpan[];
  /** Per rule: does it match a wide part of the space here (empty list, or a range as wide as BROAD_*)? */
  broad: boolean[];
}

export function addressDimension(
  lists: readonly (readonly string[] | undefined)[],
  words: number,
): AddressDimension {
  const dim: AddressDimension = {
    always4: new Int32Array(words),
    always6: new Int32Array(words),
    spans4: [],
    spans6: [],
    broad: [],
  };
  lists.forEach((list, rule) => {
    if (!list || list.length === 0) {
      setBit(dim.always4, rule);
      setBit(dim.always6, rule);
      dim.broad.push(true);
      return;
    }
    // A listed range that does not parse matches nothing; the rule is not widened to "all".
    const ranges = list.map(parseRange).filter((r) => r !== undefined);
    const all4 = ranges.some((r) => r.family === 4 && r.first === 0n && r.last === 0xffffffffn);
    const all6 = ranges.some((r) => r.family === 6 && r.first === 0n && r.last === V6_END - 1n);
    if (all4) setBit(dim.always4, rule);
    if (all6) setBit(dim.always6, rule);
    for (const r of ranges) {
      if (r.family === 4 && !all4)
        dim.spans4.push({ rule, first: Number(r.first), end: Number(r.last) + 1 });
      if (r.family === 6 && !all6) dim.spans6.push({ rule, first: r.first, end: r.last + 1n });
    }
    dim.broad.push(
      ranges.some((r) => r.last - r.first + 1n >= (r.family === 4 ? BROAD_V4 : BROAD_V6)),
    );
  });
  return dim;
}
