import { isIP } from 'node:net';
import { type TrafficProtocol, protocolNameOf } from '@rollout/contracts';

/** One connection as a flow log describes it, before it becomes a traffic.v1 event. */
export interface FlowRecord {
  /** When the connection was seen; undefined when the log does not say (conntrack -L). */
  time?: Date;
  /** undefined when the log does not say: the importer's --direction applies. */
  direction?: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: TrafficProtocol;
  srcPort?: number;
  destPort?: number;
  /** The source's workload labels (Hubble's `source.labels`), for rules' `srcSecureTags`. */
  srcSecureTags?: string[];
}

/**
 * What a parser made of one line: a flow; a line that is fine but carries no connection (a
 * header, a reply, a NODATA record), skipped with a reason; a bad line, with a reason code
 * (counted) and a message (shown for the first few); or an input that is not in the format at
 * all (a JSON array where lines of JSON are expected), said once with a hint and not read further.
 */
export type LineResult =
  | { kind: 'flow'; flow: FlowRecord }
  | { kind: 'skip'; reason: string }
  | { kind: 'bad'; reason: string; message: string }
  | { kind: 'unreadable'; reason: string; message: string };

/** Parses the lines of one input, in order (some formats declare their fields in a header line). */
export interface FlowParser {
  parse(line: string): LineResult;
}

/** What a parser may know of its input: its name (`-` for standard input). */
export interface ParserInput {
  name: string;
}

export const skip = (reason: string): LineResult => ({ kind: 'skip', reason });

/** Thrown inside a parser for a bad line; the parser turns it into a `bad` result. */
export class BadLine extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Runs `parse`, turning a BadLine into a `bad` result. */
export function guarded(parse: () => LineResult): LineResult {
  try {
    return parse();
  } catch (error) {
    if (error instanceof BadLine)
      return { kind: 'bad', reason: error.reason, message: error.message };
    throw error;
  }
}

/** The traffic.v1 protocol of an IANA protocol number (a name where traffic.v1 has one). */
export function protocolOfNumber(value: unknown, field = 'protocol'): TrafficProtocol {
  const number = integer(value, field, 0, 255, 'bad_protocol');
  return protocolNameOf(number) ?? number;
}

/** Ports mean something for these protocols only; ICMP logs put type and code there. */
export const hasPorts = (protocol: TrafficProtocol) =>
  protocol === 'tcp' || protocol === 'udp' || protocol === 'sctp';

/** A field the record does not have: said as missing, never as "undefined". */
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

/** An integer given as a number or a decimal string (JSON exports write int64 as strings). */
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

/** A time given as Unix seconds (with a fraction or not), as a number or a string. */
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

/** Parses a JSON object, or throws a BadLine. */
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

/**
 * For formats of one JSON object per line: the first line of an input that is a JSON array
 * (`gcloud logging read --format=json`) or an object printed over several lines (`jq .`) says
 * the whole input is in another shape, so it is said once, with how to convert it.
 */
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
