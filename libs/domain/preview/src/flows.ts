import {
  PREVIEW_FLOW_SAMPLES,
  type FlowConnection,
  type PreviewFlowSample,
  type PreviewVerdict,
  protocolNameOf,
} from '@rollout/contracts';
import { NO_PORT, type ParsedConnection } from '@rollout/domain/firewall';

/** Flows: connections without their source port, keyed and written as the store and the report do. */

/** Changed decisions of one flow: the connection without its source port, and both deciding rules. */
export interface FlowTally extends FlowConnection<string> {
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
  firstMs: number;
  lastMs: number;
  /** The first events of the flow, at most PREVIEW_FLOW_SAMPLES. */
  samples: PreviewFlowSample[];
}

/** Adds a later tally of the same flow: counts, first and last times, samples up to PREVIEW_FLOW_SAMPLES. */
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

/**
 * A connection without its source port, as parsed: two connections with equal keys are one flow
 * (a flow's key adds both deciding rules), so any spelling of one address is one key.
 */
export const connectionKey = (c: ParsedConnection) =>
  `${c.direction}|${c.srcFamily}:${c.s0}:${c.s1}:${c.s2}:${c.s3}|${c.destFamily}:${c.d0}:${c.d1}:${c.d2}:${c.d3}|${c.protocol}|${c.portKey}`;

/** A connection without its source port, as flows write it (canonical addresses, protocol names). */
export function flowConnection(c: ParsedConnection): FlowConnection<string> {
  return {
    direction: c.direction,
    srcIp: addressText(c.srcFamily, c.s0, c.s1, c.s2, c.s3),
    destIp: addressText(c.destFamily, c.d0, c.d1, c.d2, c.d3),
    protocol: protocolName(c.protocol),
    ...(c.portKey === NO_PORT ? {} : { destPort: c.portKey }),
  };
}

/** A protocol number as text: its traffic.v1 name where it has one, else the number. */
export const protocolName = (protocol: number): string =>
  protocolNameOf(protocol) ?? String(protocol);

/** An address as canonical text: a dotted quad, or eight hex groups (unabbreviated; Postgres reads both). */
export function addressText(family: 4 | 6, w0: number, w1: number, w2: number, w3: number): string {
  if (family === 4) return `${w0 >>> 24}.${(w0 >>> 16) & 255}.${(w0 >>> 8) & 255}.${w0 & 255}`;
  return [w0, w1, w2, w3]
    .map((w) => `${((w >>> 16) & 0xffff).toString(16)}:${(w & 0xffff).toString(16)}`)
    .join(':');
}
