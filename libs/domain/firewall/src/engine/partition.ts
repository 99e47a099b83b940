/** Rule sets are bitsets over rules in priority order: the lowest set bit is the first match. */

/**
 * A stored set is aggregate words (bit j: word j is non-zero, so a scan skips 1,024 rules with one
 * AND) then bit words, side by side because a decision usually ends in the first words.
 */
export class SetPool {
  readonly words: number;
  readonly aggregateWords: number;
  readonly stride: number;
  private readonly sets: Int32Array[] = [];
  private readonly byHash = new Map<number, number[]>();

  constructor(ruleCount: number) {
    this.words = Math.max(1, Math.ceil(ruleCount / 32));
    this.aggregateWords = Math.ceil(this.words / 32);
    // Whole 64-byte cache lines per set (16 words), so sets share a line with no neighbour.
    this.stride = Math.ceil((this.aggregateWords + this.words) / 16) * 16;
  }

  newSet(): Int32Array {
    return new Int32Array(this.words);
  }

  /** The offset (in the sealed table) of a set equal to `set`, stored once. `set` may be reused afterwards. */
  intern(set: Int32Array): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < set.length; i++) hash = Math.imul(hash ^ set[i], 0x01000193);
    const candidates = this.byHash.get(hash);
    if (candidates) {
      for (const id of candidates)
        if (equal(this.sets[id], set, set.length)) return id * this.stride;
    }
    const id = this.sets.length;
    this.sets.push(set.slice());
    if (candidates) candidates.push(id);
    else this.byHash.set(hash, [id]);
    return id * this.stride;
  }

  get size(): number {
    return this.sets.length;
  }

  /** All sets in one array: the set interned at offset o occupies [o, o + stride) (aggregate, then bits). */
  seal(): Int32Array {
    const A = this.aggregateWords;
    const table = new Int32Array(Math.max(1, this.sets.length) * this.stride);
    this.sets.forEach((set, id) => {
      const base = id * this.stride;
      table.set(set, base + A);
      for (let w = 0; w < set.length; w++)
        if (set[w] !== 0) table[base + (w >>> 5)] |= 1 << (w & 31);
    });
    return table;
  }
}

export class ListPool {
  private readonly items: number[] = [];
  private readonly byHash = new Map<number, number[]>();

  /** The offset of a list equal to list[0, length); the empty list is at offset 0. */
  intern(list: Int32Array, length: number): number {
    if (length === 0) return 0;
    let hash = 0x811c9dc5 ^ length;
    for (let i = 0; i < length; i++) hash = Math.imul(hash ^ list[i], 0x01000193);
    const candidates = this.byHash.get(hash);
    if (candidates) {
      for (const offset of candidates) {
        let same = true;
        for (let i = 0; i < length && same; i++) same = this.items[offset + i] === list[i];
        if (same) return offset;
      }
    }
    const offset = this.items.length;
    for (let i = 0; i < length; i++) this.items.push(list[i]);
    if (candidates) candidates.push(offset);
    else this.byHash.set(hash, [offset]);
    return offset;
  }

  seal(): Int32Array {
    return Int32Array.from(this.items);
  }
}

function equal(a: Int32Array, b: Int32Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const setBit = (set: Int32Array, rule: number) => {
  set[rule >>> 5] |= 1 << (rule & 31);
};

export const hasBit = (set: Int32Array, rule: number) =>
  (set[rule >>> 5] & (1 << (rule & 31))) !== 0;

export interface Span {
  rule: number;
  first: number;
  end: number;
}

/** Elementary intervals: interval k is [starts[k], starts[k+1]) and carries label `labels[k]`. */
export interface Partition {
  starts: number[];
  labels: number[];
}

/** Events are packed into one double (key, rule, start/end) so one native numeric sort orders them. */
const RULE_BITS = 2 ** 17; // rules per direction ≤ 65,536 (priorities are unique 0-65535)

/**
 * Overlapping spans of one rule are counted, so a rule leaves the set only when its last covering
 * span ends; adjacent intervals with the same label merge, which keeps lookups short.
 */
export function partition(
  spans: readonly Span[],
  always: Int32Array,
  size: number,
  ruleCount: number,
  label: (set: Int32Array) => number,
): Partition {
  const events = new Float64Array(spans.length * 2);
  let n = 0;
  for (const { rule, first, end } of spans) {
    events[n++] = (first * RULE_BITS + rule) * 2 + 1;
    if (end < size) events[n++] = (end * RULE_BITS + rule) * 2;
  }
  const sorted = events.subarray(0, n).sort();
  const current = always.slice();
  const cover = new Int32Array(ruleCount);
  const starts: number[] = [];
  const labels: number[] = [];
  const emit = (start: number) => {
    const id = label(current);
    if (labels.length > 0 && labels[labels.length - 1] === id) return;
    starts.push(start);
    labels.push(id);
  };
  let start = 0;
  for (let i = 0; i < n;) {
    const at = Math.floor(sorted[i] / (2 * RULE_BITS));
    if (at > start) {
      emit(start);
      start = at;
    }
    for (; i < n && Math.floor(sorted[i] / (2 * RULE_BITS)) === at; i++) {
      const rule = Math.floor(sorted[i] / 2) % RULE_BITS;
      if (sorted[i] % 2 === 1) {
        if (cover[rule]++ === 0) setBit(current, rule);
      } else if (--cover[rule] === 0) {
        current[rule >>> 5] &= ~(1 << (rule & 31));
      }
    }
  }
  emit(start);
  return { starts, labels };
}
