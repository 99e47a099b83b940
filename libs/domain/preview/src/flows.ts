import {
  PREVIEW_FLOW_SAMPLES,
  type FlowConnection,
  type PreviewFlowSample,
  type PreviewVerdict,
  protocolNameOf,
} from '@rollout/contracts';
import { NO_PORT, type ParsedConnection } from '@rollout/domain/firewall';

/** A flow: a connection without its source port, and both deciding rules. */
export interface FlowTally extends FlowConnection<string> {
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
  firstMs: number;
  lastMs: number;
  samples: PreviewFlowSample[];
}

export function addToFlow(
  into: Pick<FlowTally, 'count' | 'firstMs' | 'lastMs' | 'samples'>,
  from: Pick<FlowTally, 'count' | 'firstMs' | 'lastMs' | 'samples'>,
): void {
  into.count += from.count;
  if (from.firstMs < into.firstMs) into.firstMs = from.firstMs;
  if (from.lastMs > into.lastMs) into.lastMs = from.lastMs;
  for (const sample of from.samples) {
    if (into.samples.length >= PREVIEW_FLOW_SAMPLES) break;
    into.samples.push(sample);
  }
}

/** From the parsed connection, so any spelling of one address is one key. */
export const connectionKey = (c: ParsedConnection) =>
  `${c.direction}|${c.srcFamily}:${c.s0}:${c.s1}:${c.s2}:${c.s3}|${c.destFamily}:${c.d0}:${c.d1}:${c.d2}:${c.d3}|${c.protocol}|${c.portKey}`;

export function flowConnection(c: ParsedConnection): FlowConnection<string> {
  return {
    direction: c.direction,
    srcIp: addressText(c.srcFamily, c.s0, c.s1, c.s2, c.s3),
    destIp: addressText(c.destFamily, c.d0, c.d1, c.d2, c.d3),
    protocol: protocolName(c.protocol),
    ...(c.portKey === NO_PORT ? {} : { destPort: c.portKey }),
  };
}

export const protocolName = (protocol: number): string =>
  protocolNameOf(protocol) ?? String(protocol);

/** Eight hex groups unabbreviated for IPv6: Postgres reads it. */
export function addressText(family: 4 | 6, w0: number, w1: number, w2: number, w3: number): string {
  if (family === 4) return `${w0 >>> 24}.${(w0 >>> 16) & 255}.${(w0 >>> 8) & 255}.${w0 & 255}`;
  return [w0, w1, w2, w3]
    .map((w) => `${((w >>> 16) & 0xffff).toString(16)}:${(w & 0xffff).toString(16)}`)
    .join(':');
}
