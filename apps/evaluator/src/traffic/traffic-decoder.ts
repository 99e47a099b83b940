import { TRAFFIC_EVENT_SCHEMA, TRAFFIC_PROTOCOLS, TrafficEvent } from '@rollout/contracts';
import { ParsedConnection, parseAddress, parseConnection } from '@rollout/firewall';
import Ajv from 'ajv';

/** Why an event is dead-lettered; the metric's `reason` label. */
export type RejectKind = 'bad_subject' | 'bad_json' | 'invalid_event' | 'bad_address' | 'unknown_policy' | 'unevaluable';

export interface DecodedTraffic {
  event: TrafficEvent;
  /** `{project}.{location}.{firewallPolicy}` from the subject. */
  key: string;
  connection: ParsedConnection;
  timeMs: number;
}

export interface RejectedTraffic {
  kind: RejectKind;
  reason: string;
}

const decoder = new TextDecoder();
const PROTOCOL_MESSAGE = `must be one of ${TRAFFIC_PROTOCOLS.join(', ')} or a protocol number 0-255`;

/**
 * Turns one TRAFFIC message into an event ready to evaluate, or says why it never will be.
 * The JSON schema is compiled once (ajv generates a validation function), addresses are
 * parsed once by the engine's parser and reused for every policy the event is evaluated against.
 */
export class TrafficDecoder {
  private readonly validate = new Ajv({ allErrors: false, strict: true }).compile<TrafficEvent>(TRAFFIC_EVENT_SCHEMA);

  /** `subjectPrefix`: the namespaced `traffic.v1.` */
  constructor(private readonly subjectPrefix: string) {}

  decode(subject: string, data: Uint8Array): DecodedTraffic | RejectedTraffic {
    const key = subject.startsWith(this.subjectPrefix) ? subject.slice(this.subjectPrefix.length) : '';
    if (key.split('.').length !== 3) {
      return { kind: 'bad_subject', reason: `subject ${subject} is not traffic.v1.{project}.{location}.{firewallPolicy}` };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(decoder.decode(data));
    } catch {
      return { kind: 'bad_json', reason: 'traffic event is not JSON' };
    }
    if (!this.validate(raw)) {
      const error = this.validate.errors?.[0];
      const where = error?.instancePath ? `event${error.instancePath.replace(/\//g, '.')}` : 'event';
      const message = where === 'event.protocol' ? PROTOCOL_MESSAGE : (error?.message ?? 'is invalid');
      return { kind: 'invalid_event', reason: `invalid traffic event: ${where} ${message}` };
    }
    const event = raw;
    const timeMs = Date.parse(event.time);
    if (Number.isNaN(timeMs)) return { kind: 'invalid_event', reason: `invalid traffic event: event.time "${event.time}" is not a date` };
    const connection = parseConnection(event);
    if (!connection) {
      for (const field of ['srcIp', 'destIp'] as const) {
        if (!parseAddress(event[field])) return { kind: 'bad_address', reason: `invalid traffic event: ${field} "${event[field]}" is not an IP address` };
      }
      return { kind: 'unevaluable', reason: 'invalid traffic event: the engine cannot evaluate it' };
    }
    return { event, key, connection, timeMs };
  }
}

export const isRejected = (decoded: DecodedTraffic | RejectedTraffic): decoded is RejectedTraffic => 'kind' in decoded;
