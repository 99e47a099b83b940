import {
  TRAFFIC_EVENT_SCHEMA,
  TRAFFIC_PROTOCOLS,
  TRAFFIC_V1,
  TrafficEvent,
  foreignTrafficMessageId,
  formatPolicyKey,
  parseContractVersion,
} from '@rollout/contracts';
import {
  TRAFFIC_V2ALPHA,
  TRAFFIC_V2ALPHA_BATCH_SCHEMA,
  TRAFFIC_V2ALPHA_EVENT_SCHEMA,
  TrafficEvent as TrafficEventV2alpha,
  TrafficEventBatch,
} from '@rollout/contracts-alpha';
import { ParsedConnection, parseAddress, parseConnection } from '@rollout/domain/firewall';
import Ajv, { ErrorObject } from 'ajv';
import { fromV2alpha } from './traffic-v2alpha';

/** The dead-letter metric's `reason` label. */
export type RejectKind =
  | 'bad_subject'
  | 'unknown_major'
  | 'contract_mismatch'
  | 'foreign_message_id'
  | 'bad_json'
  | 'invalid_event'
  | 'bad_address'
  | 'unknown_policy'
  | 'unevaluable';

/** Producers set it to `<project>/<id>` (trafficMessageId). */
export const MESSAGE_ID_HEADER = 'Nats-Msg-Id';

export const TRAFFIC_MAJORS = { v1: TRAFFIC_V1, v2alpha: TRAFFIC_V2ALPHA } as const;
export type TrafficMajor = keyof typeof TRAFFIC_MAJORS;

/** In the v1 shape whichever major carried it. */
export interface DecodedTraffic {
  event: TrafficEvent;
  /** `{project}.{location}.{firewallPolicy}` from the subject. */
  key: string;
  connection: ParsedConnection;
  timeMs: number;
}

export interface DecodedMessage {
  major: TrafficMajor;
  /** `{project}.{location}.{firewallPolicy}` from the subject. */
  key: string;
  events: DecodedTraffic[];
}

export interface RejectedTraffic {
  kind: RejectKind;
  reason: string;
  /** Whose report misses the message, when the subject names a policy. */
  key?: string;
}

// fatal: bad UTF-8 is refused, never read as U+FFFD (two different ids could become one).
const decoder = new TextDecoder('utf-8', { fatal: true });
/** Postgres cannot store NUL. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const PROTOCOL_MESSAGE = `must be one of ${TRAFFIC_PROTOCOLS.join(', ')} or a protocol number 0-255`;
const MAJOR = /^v\d+(?:(?:alpha|beta)\d*)?$/;
const SUPPORTED = Object.values(TRAFFIC_MAJORS)
  .map((p) => p.name)
  .join(', ');

/** A batch is all or nothing; addresses are parsed once for every policy the event meets. */
export class TrafficDecoder {
  private readonly ajv = new Ajv({ allErrors: false, strict: true });
  private readonly validateV1 = this.ajv.compile<TrafficEvent>(TRAFFIC_EVENT_SCHEMA);
  private readonly validateBatch = this.ajv.compile<TrafficEventBatch>(
    TRAFFIC_V2ALPHA_BATCH_SCHEMA,
  );
  private readonly validateV2alpha = this.ajv.compile<TrafficEventV2alpha>(
    TRAFFIC_V2ALPHA_EVENT_SCHEMA,
  );

  /** `subjectPrefix`: the namespaced `traffic.` */
  constructor(private readonly subjectPrefix: string) {}

  decode(
    subject: string,
    data: Uint8Array,
    contractVersion?: string,
    messageId?: string,
  ): DecodedMessage | RejectedTraffic {
    const tokens = subject.startsWith(this.subjectPrefix)
      ? subject.slice(this.subjectPrefix.length).split('.')
      : [];
    const majorToken = tokens[0] ?? '';
    if (!MAJOR.test(majorToken)) {
      return {
        kind: 'bad_subject',
        reason: `subject ${subject} is not traffic.{major}.{project}.{location}.{firewallPolicy}`,
      };
    }
    if (!(majorToken in TRAFFIC_MAJORS)) {
      return {
        kind: 'unknown_major',
        reason: `unknown major traffic.${majorToken}: this evaluator reads ${SUPPORTED}`,
      };
    }
    const major = majorToken as TrafficMajor;
    const packageName = TRAFFIC_MAJORS[major].name;
    if (tokens.length !== 4 || tokens.some((token) => token === '')) {
      return {
        kind: 'bad_subject',
        reason: `subject ${subject} is not ${packageName}.{project}.{location}.{firewallPolicy}`,
      };
    }
    const key = formatPolicyKey({ project: tokens[1], location: tokens[2], policy: tokens[3] });
    const foreign = foreignTrafficMessageId(tokens[1], messageId);
    if (foreign) return { kind: 'foreign_message_id', reason: foreign, key };
    const result = this.decodeBody(major, key, data, parseContractVersion(contractVersion));
    return isRejected(result) ? { ...result, key } : result;
  }

  private decodeBody(
    major: TrafficMajor,
    key: string,
    data: Uint8Array,
    declared: ReturnType<typeof parseContractVersion>,
  ): DecodedMessage | RejectedTraffic {
    const packageName = TRAFFIC_MAJORS[major].name;
    if (declared && declared.name !== packageName) {
      return {
        kind: 'contract_mismatch',
        reason: `Contract-Version ${declared.name}/${declared.version} does not match the subject's package ${packageName}`,
      };
    }
    let text: string;
    try {
      text = decoder.decode(data);
    } catch {
      return { kind: 'bad_json', reason: 'traffic message is not valid UTF-8' };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return {
        kind: 'bad_json',
        reason: major === 'v1' ? 'traffic event is not JSON' : 'traffic event batch is not JSON',
      };
    }
    return major === 'v1' ? this.decodeV1(raw, key) : this.decodeV2alpha(raw, key);
  }

  private decodeV1(raw: unknown, key: string): DecodedMessage | RejectedTraffic {
    if (!this.validateV1(raw)) return invalid(this.validateV1.errors, 'event');
    const decoded = ready(raw, key, 'event', V1_FIELDS);
    return isRejected(decoded) ? decoded : { major: 'v1', key, events: [decoded] };
  }

  private decodeV2alpha(raw: unknown, key: string): DecodedMessage | RejectedTraffic {
    if (!this.validateBatch(raw))
      return invalid(this.validateBatch.errors, 'batch', 'invalid traffic event batch');
    const events: DecodedTraffic[] = [];
    for (let i = 0; i < raw.events.length; i++) {
      const where = `events[${i}]`;
      const event = raw.events[i];
      if (!this.validateV2alpha(event)) return invalid(this.validateV2alpha.errors, where);
      const decoded = ready(fromV2alpha(event), key, where, V2ALPHA_FIELDS);
      if (isRejected(decoded)) return decoded;
      events.push(decoded);
    }
    return { major: 'v2alpha', key, events };
  }
}

/** How each major names the address fields, for reasons in the producer's own terms. */
const V1_FIELDS = { srcIp: 'srcIp', destIp: 'destIp' } as const;
const V2ALPHA_FIELDS = { srcIp: 'sourceIp', destIp: 'destinationIp' } as const;

function invalid(
  errors: ErrorObject[] | null | undefined,
  root: string,
  prefix = 'invalid traffic event',
): RejectedTraffic {
  const error = errors?.[0];
  const where = error?.instancePath
    ? `${root}${error.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.')}`
    : root;
  const message = where.endsWith('.protocol') ? PROTOCOL_MESSAGE : (error?.message ?? 'is invalid');
  return { kind: 'invalid_event', reason: `${prefix}: ${where} ${message}` };
}

function ready(
  event: TrafficEvent,
  key: string,
  where: string,
  fields: typeof V1_FIELDS | typeof V2ALPHA_FIELDS,
): DecodedTraffic | RejectedTraffic {
  if (CONTROL.test(event.id)) {
    return {
      kind: 'invalid_event',
      reason: `invalid traffic event: ${where === 'event' ? 'id' : `${where}.id`} contains control characters`,
    };
  }
  const timeMs = Date.parse(event.time);
  if (Number.isNaN(timeMs))
    return {
      kind: 'invalid_event',
      reason: `invalid traffic event: ${where}.time "${event.time}" is not a date`,
    };
  const connection = parseConnection(event);
  if (!connection) {
    for (const field of ['srcIp', 'destIp'] as const) {
      if (!parseAddress(event[field])) {
        const name = where === 'event' ? fields[field] : `${where}.${fields[field]}`;
        return {
          kind: 'bad_address',
          reason: `invalid traffic event: ${name} "${event[field]}" is not an IP address`,
        };
      }
    }
    return {
      kind: 'unevaluable',
      reason: `invalid traffic event: the engine cannot evaluate ${where === 'event' ? 'it' : where}`,
    };
  }
  return { event, key, connection, timeMs };
}

export const isRejected = (
  decoded: DecodedMessage | DecodedTraffic | RejectedTraffic,
): decoded is RejectedTraffic => 'kind' in decoded;
