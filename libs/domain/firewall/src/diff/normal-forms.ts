import { type FirewallRule, protocolNameOf } from '@rollout/contracts';
import {
  LAYER4_END,
  PORT_KEYS,
  addressIntervals,
  layer4Intervals,
  toCidrs,
} from '../analysis/space';
import { NO_PORT } from '../engine/connection';

const EVERY_ADDRESS = toCidrs(addressIntervals(undefined));

export function normalRanges(ranges: readonly string[] | undefined): string[] {
  if (!ranges || ranges.length === 0) return EVERY_ADDRESS;
  return toCidrs(addressIntervals(ranges));
}

const protocolText = (protocol: number) => protocolNameOf(protocol) ?? String(protocol);

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
