import { TrafficEvent } from '@rollout/contracts';
import { TrafficEvent as TrafficEventV2alpha } from '@rollout/contracts-alpha';
import { DecodedMessage, RejectedTraffic, isRejected } from '../src/traffic-decoder';

/** Test helpers for the traffic decoder: messages as bytes, one event in both majors' spelling, and what decoding gave. */

export const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
export const v1Event = (n: number, overrides: Partial<TrafficEvent> = {}): TrafficEvent => ({
  id: `e-${n}`,
  time: '2025-06-01T00:00:00Z',
  direction: 'INGRESS',
  srcIp: `10.0.0.${n}`,
  destIp: '192.0.2.10',
  protocol: 'tcp',
  srcPort: 40000 + n,
  destPort: 22,
  ...overrides,
});
/** The same event in traffic.v2alpha's spelling. */
export const v2Event = (
  n: number,
  overrides: Partial<TrafficEventV2alpha> = {},
): TrafficEventV2alpha => {
  const { srcIp, destIp, srcPort, destPort, ...rest } = v1Event(n);
  return {
    ...rest,
    sourceIp: srcIp,
    destinationIp: destIp,
    sourcePort: srcPort,
    destinationPort: destPort,
    ...overrides,
  };
};

export function accepted(decoded: DecodedMessage | RejectedTraffic): DecodedMessage {
  if (isRejected(decoded)) throw new Error(`rejected: ${decoded.reason}`);
  return decoded;
}
export function rejected(decoded: DecodedMessage | RejectedTraffic): RejectedTraffic {
  if (!isRejected(decoded)) throw new Error('accepted');
  return { kind: decoded.kind, reason: decoded.reason };
}
