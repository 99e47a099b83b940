import type { AnalysisLayer4 } from '@rollout/contracts';
import {
  ADDRESS_END,
  Interval,
  V6_BASE,
  addressIntervals,
  normalize,
  toCidrs,
} from '../analysis/space';

/** CIDR blocks named in a summary before "and N more". */
const MAX_NAMED_RANGES = 5;

/** "tcp/22", "tcp/22,443 and udp", "all traffic". */
export function layer4Text(configs: readonly AnalysisLayer4[]): string {
  if (configs.length === 1 && configs[0].ipProtocols.join() === 'all' && !configs[0].ports)
    return 'all traffic';
  const texts = configs.flatMap((config) =>
    config.ipProtocols.map((protocol) =>
      config.ports ? `${protocol}/${config.ports.join(',')}` : protocol,
    ),
  );
  return joinWords(texts);
}

function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function namedRanges(cidrs: readonly string[]): string {
  if (cidrs.length <= MAX_NAMED_RANGES) return joinWords(cidrs);
  return `${cidrs.slice(0, MAX_NAMED_RANGES).join(', ')} and ${cidrs.length - MAX_NAMED_RANGES} more`;
}

function coveringBlock(intervals: readonly Interval[], base: bigint): Interval {
  const first = intervals[0].first - base;
  const last = intervals[intervals.length - 1].last - base;
  const bits = BigInt((first ^ last).toString(2).length - (first === last ? 1 : 0));
  const start = (first >> bits) << bits;
  return { first: base + start, last: base + start + (1n << bits) - 1n };
}

function subtract(block: Interval, intervals: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let next = block.first;
  for (const { first, last } of intervals) {
    if (first > next) out.push({ first: next, last: first - 1n });
    next = last + 1n;
  }
  if (next <= block.last) out.push({ first: next, last: block.last });
  return out;
}

/** Per family, the blocks themselves or, when fewer, the covering block with exceptions. */
export function describeRanges(cidrs: readonly string[]): {
  everything: boolean;
  text: string;
  except: string;
} {
  const keys = addressIntervals(cidrs);
  if (keys.length === 1 && keys[0].first === 0n && keys[0].last === ADDRESS_END - 1n)
    return { everything: true, text: 'anywhere', except: '' };
  const texts: string[] = [];
  const exceptions: string[] = [];
  const families = [
    { base: 0n, end: V6_BASE - 1n },
    { base: V6_BASE, end: ADDRESS_END - 1n },
  ];
  for (const { base, end } of families) {
    const family = normalize(
      keys
        .filter((k) => k.last >= base && k.first <= end)
        .map((k) => ({
          first: k.first < base ? base : k.first,
          last: k.last > end ? end : k.last,
        })),
    );
    if (family.length === 0) continue;
    const listed = toCidrs(family);
    const block = coveringBlock(family, base);
    const holes = toCidrs(subtract(block, family));
    if (holes.length > 0 && holes.length < listed.length) {
      texts.push(toCidrs([block])[0]);
      exceptions.push(...holes);
    } else texts.push(...listed);
  }
  return { everything: false, text: namedRanges(texts), except: namedRanges(exceptions) };
}
