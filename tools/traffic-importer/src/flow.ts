import { isIP } from 'node:net';
import { type TrafficProtocol, protocolNameOf } from '@rollout/contracts';

export interface FlowRecord {
  /** Undefined when the log does not say (conntrack -L). */
  time?: Date;
  /** Undefined when the log does not say: --direction applies. */
  direction?: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: TrafficProtocol;
  srcPort?: number;
  destPort?: number;
  /** The source's workload labels (Hubble's `source.labels`), for rules' `srcSecureTags`. */
  srcSecureTags?: string[];
}

/** `unreadable`: the whole input is in another shape (a JSON array for JSON lines), said once with a hint. */
export type LineResult =
  | { kind: 'flow'; flow: FlowRecord }
  | { kind: 'skip'; reason: string }
  | { kind: 'bad'; reason: string; message: string }
  | { kind: 'unreadable'; reason: string; message: string };

/** Some formats declare their fields in a header line, so lines come in order. */
export interface FlowParser {
  parse(line: string): LineResult;
}

export interface ParserInput {
  name: string;
}

export const skip = (reason: string): LineResult => ({ kind: 'skip', reason });

export class BadLine extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function guarded(parse: () => LineResult): LineResult {
  try {
    return parse();
  } catch (error) {
    if (error instanceof BadLine)
      return { kind: 'bad', reason: error.reason, message: error.message };
    throw error;
  }
}

export function protocolOfNumber(value: unknown, field = 'protocol'): TrafficProtocol {
  const number = integer(value, field, 0, 255, 'bad_protocol');
  return protocolNameOf(number) ?? number;
}

/** Ports mean something for these protocols only; ICMP logs put type and code there. */
export const hasPorts = (protocol: TrafficProtocol) =>
  protocol === 'tcp' || protocol === 'udp' || protocol === 'sctp';

/** Said as missing, never as "undefined". */
function present(value: unknown, field: string): void {
  if (value === undefined || value === null)
    throw new BadLine('missing_field', `${field} is missing`);
}

export function address(value: unknown, field: string): string {
  present(value, field);
  if (typeof value !== 'string' || isIP(value) === 0)
    throw new BadLine('bad_address', `${field} ${JSON.stringify(value)} is not an IP address`);
  return value;
}

export function port(value: unknown, field: string): number {
  return integer(value, field, 0, 65535, 'bad_port');
}

/** JSON exports write int64 as strings. */
export function integer(
  value: unknown,
  field: string,
  min: number,
  max: number,
  reason: string,
): number {
  present(value, field);
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new BadLine(
      reason,
      `${field} ${JSON.stringify(value)} is not an integer from ${min} to ${max}`,
    );
  }
  return number;
}

export function epochSeconds(value: unknown, field: string): Date {
  present(value, field);
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
    throw new BadLine('bad_time', `${field} ${JSON.stringify(value)} is not a Unix time`);
  return validDate(new Date(Math.round(seconds * 1000)), value, field);
}

export function rfc3339(value: unknown, field: string): Date {
  present(value, field);
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value)
  ) {
    throw new BadLine('bad_time', `${field} ${JSON.stringify(value)} is not an RFC 3339 time`);
  }
  return validDate(new Date(value.replace(/(\.\d{3})\d+/, '$1')), value, field);
}

function validDate(date: Date, value: unknown, field: string): Date {
  // Beyond year 9999 an ISO string no longer has four year digits, and traffic.v1 wants RFC 3339.
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999)
    throw new BadLine('bad_time', `${field} ${JSON.stringify(value)} is not a valid time`);
  return date;
}

export function jsonObject(line: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new BadLine('bad_json', 'not JSON');
  }
  if (!isObject(value)) throw new BadLine('bad_json', 'not a JSON object');
  return value;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON array (`gcloud logging read --format=json`) or pretty-printed object (`jq .`) said once, with how to convert it. */
export function notJsonLines(
  line: string,
  {
    format,
    oneObjectOf,
    arrayFrom = '`jq -s`',
  }: { format: string; oneObjectOf: string; arrayFrom?: string },
): LineResult | undefined {
  const convert = `| npx rollout-traffic import --format ${format} … -`;
  const start = line.trimStart();
  if (start.startsWith('['))
    return {
      kind: 'unreadable',
      reason: 'json_array',
      message: `the input is one JSON array (as ${arrayFrom} writes), not one ${oneObjectOf} per line (JSON lines); convert it: jq -c '.[]' <file> ${convert}`,
    };
  if (start.trimEnd() === '{')
    return {
      kind: 'unreadable',
      reason: 'pretty_json',
      message: `the input is JSON printed over several lines (as \`jq .\` writes), not one ${oneObjectOf} per line (JSON lines); convert it: jq -c . <file> ${convert}`,
    };
  return undefined;
}
