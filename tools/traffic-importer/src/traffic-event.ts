import { createHmac } from 'node:crypto';
import type { TrafficEvent } from '@rollout/contracts';
import type { FlowRecord } from './flow';

/**
 * HMAC-SHA-256 with the installation's key (`loadIdKey`): a re-import gets the same id, so JetStream
 * stores it once, while a producer who can guess a record cannot squat its id. A salt makes a
 * deliberate replay new traffic.
 */
export function eventId(
  key: Uint8Array,
  subject: string,
  format: string,
  line: string,
  round = 0,
  salt = '',
): string {
  const hash = createHmac('sha256', key)
    .update(subject)
    .update('\n')
    .update(format)
    .update('\n')
    .update(line);
  if (round > 0 || salt !== '') hash.update(`\n${round}\n${salt}`);
  return `flow-${hash.digest('base64url').slice(0, 32)}`;
}

export interface EventOptions {
  id: string;
  defaultDirection: 'INGRESS' | 'EGRESS';
  /** Also when the import restamps every event. */
  now: Date;
  restamp: boolean;
}

export function trafficEvent(
  flow: FlowRecord,
  { id, defaultDirection, now, restamp }: EventOptions,
): TrafficEvent {
  const event: TrafficEvent = {
    id,
    time: (restamp || !flow.time ? now : flow.time).toISOString(),
    direction: flow.direction ?? defaultDirection,
    srcIp: flow.srcIp,
    destIp: flow.destIp,
    protocol: flow.protocol,
  };
  if (flow.srcPort !== undefined) event.srcPort = flow.srcPort;
  if (flow.destPort !== undefined) event.destPort = flow.destPort;
  if (flow.srcSecureTags?.length) event.srcSecureTags = flow.srcSecureTags;
  return event;
}
