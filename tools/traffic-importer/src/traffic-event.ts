import { createHmac } from 'node:crypto';
import type { TrafficEvent } from '@rollout/contracts';
import type { FlowRecord } from './flow';

/**
 * The event id of a record (its Nats-Msg-Id is this id in the project's namespace): an
 * HMAC-SHA-256, keyed with the installation's secret key (`loadIdKey`), of the subject it goes to
 * and the record itself (its format, its text, and the round when a file is replayed more than
 * once), and the salt the import was given, if any. The same record imported again from this
 * installation gets the same id, so JetStream stores it once (within the TRAFFIC stream's
 * duplicate window); a producer who can guess a record cannot compute its id to squat it. A salt
 * makes a deliberate replay new traffic.
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
  /** The direction of records whose log does not say. */
  defaultDirection: 'INGRESS' | 'EGRESS';
  /** The event's time when the record has none, or when the import restamps every event. */
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
