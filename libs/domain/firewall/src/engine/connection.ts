/** A traffic event is parsed once (protocols to IANA numbers, tags to registry ids), then evaluated against every policy. */
import { type FlowConnection, PROTOCOL_NUMBERS } from '@rollout/contracts';
import { Direction } from '../model';
import { AddressBox, parseAddressInto } from './address';

// A module-local binding: an imported call may compile to a getter call (see compile.ts).
const parseAddressFast = parseAddressInto;

/** The protocol is a name (tcp, udp, icmp, icmpv6, sctp, esp, ah) or an IP protocol number 0-255. */
export interface Connection extends FlowConnection<string | number> {
  srcPort?: number;
}

export const NO_PORT = 65536;

/** The addresses sit in the object itself: a decision reads them with no extra pointer hop. */
export class ParsedConnection {
  direction: Direction = 'INGRESS';
  /** Source address: family, then IPv4 in s0 or IPv6 as four big-endian unsigned words. */
  srcFamily: 4 | 6 = 4;
  s0 = 0;
  s1 = 0;
  s2 = 0;
  s3 = 0;
  destFamily: 4 | 6 = 4;
  d0 = 0;
  d1 = 0;
  d2 = 0;
  d3 = 0;
  protocol = 0;
  /** The destination port, or NO_PORT when the connection has none (then only rules without ports match). */
  portKey = NO_PORT;
  targetTags: readonly string[] = EMPTY;
  /** The tags as ids in the registry of tags compiled policies name (see registerTag); unknown tags left out. */
  tagIds: Int32Array | undefined = undefined;
  srcSecureTags: readonly string[] = EMPTY;
  srcTagIds: Int32Array | undefined = undefined;
  /** How many tags the registry held when both tag lists were resolved (a policy compiled later may name more). */
  tagEpoch = 0;
}

const EMPTY: readonly string[] = Object.freeze([]);

const PROTOCOLS = new Map<string, number>();
for (let n = 0; n <= 255; n++) PROTOCOLS.set(String(n), n);
for (const [name, n] of Object.entries(PROTOCOL_NUMBERS)) {
  PROTOCOLS.set(name, n);
  PROTOCOLS.set(name.toUpperCase(), n);
}

export function parseProtocol(protocol: string | number): number | undefined {
  if (typeof protocol === 'number')
    return Number.isInteger(protocol) && protocol >= 0 && protocol <= 255 ? protocol : undefined;
  return typeof protocol === 'string' ? PROTOCOLS.get(protocol) : undefined;
}

/**
 * The port lookup key: the port itself when it is an integer 0-65535, else NO_PORT. A port out
 * of range lies in no rule's port range, which is exactly how NO_PORT is treated, so both agree.
 */
export function portKey(destPort: number | undefined): number {
  return typeof destPort === 'number' &&
    Number.isInteger(destPort) &&
    destPort >= 0 &&
    destPort <= 65535
    ? destPort
    : NO_PORT;
}

/**
 * Every tag some compiled policy names, numbered once for the process, so evaluation indexes
 * arrays instead of hashing tags once per policy. Bounded by the distinct tags users write.
 */
const TAG_IDS = new Map<string, number>();

export function registerTag(tag: string): number {
  let id = TAG_IDS.get(tag);
  if (id === undefined) {
    id = TAG_IDS.size;
    TAG_IDS.set(tag, id);
  }
  return id;
}

function resolveTags(tags: readonly string[]): Int32Array {
  let known = 0;
  for (const tag of tags) if (TAG_IDS.has(tag)) known++;
  const ids = new Int32Array(known);
  known = 0;
  for (const tag of tags) {
    const id = TAG_IDS.get(tag);
    if (id !== undefined) ids[known++] = id;
  }
  return ids;
}

const scratch = new AddressBox();

/** Tag ids are resolved only when asked: a connection evaluated once looks its tags up by name. */
export function parseConnectionInto(
  connection: Connection,
  out: ParsedConnection,
  resolveTagIds: boolean,
): boolean {
  const direction = connection.direction;
  if (direction !== 'INGRESS' && direction !== 'EGRESS') return false;
  out.direction = direction;
  if (!parseAddressFast(connection.srcIp, scratch)) return false;
  out.srcFamily = scratch.family;
  out.s0 = scratch.w0;
  out.s1 = scratch.w1;
  out.s2 = scratch.w2;
  out.s3 = scratch.w3;
  if (!parseAddressFast(connection.destIp, scratch)) return false;
  out.destFamily = scratch.family;
  out.d0 = scratch.w0;
  out.d1 = scratch.w1;
  out.d2 = scratch.w2;
  out.d3 = scratch.w3;
  const p = connection.protocol;
  const protocol =
    typeof p === 'number'
      ? Number.isInteger(p) && p >= 0 && p <= 255
        ? p
        : undefined
      : typeof p === 'string'
        ? PROTOCOLS.get(p)
        : undefined;
  if (protocol === undefined) return false;
  out.protocol = protocol;
  const port = connection.destPort;
  out.portKey =
    typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535
      ? port
      : NO_PORT;
  const tags = connection.targetTags ?? EMPTY;
  if (!Array.isArray(tags)) return false;
  out.targetTags = tags;
  out.tagIds = resolveTagIds ? resolveTags(tags) : undefined;
  const sourceTags = connection.srcSecureTags ?? EMPTY;
  if (!Array.isArray(sourceTags)) return false;
  out.srcSecureTags = sourceTags;
  out.srcTagIds = resolveTagIds && sourceTags.length ? resolveTags(sourceTags) : undefined;
  out.tagEpoch = TAG_IDS.size;
  return true;
}

/** Undefined when it cannot be evaluated (the caller dead-letters; connectionProblem says why). */
export function parseConnection(connection: Connection): ParsedConnection | undefined {
  const out = new ParsedConnection();
  return parseConnectionInto(connection, out, true) ? out : undefined;
}

export function connectionProblem(connection: Connection): string | undefined {
  if (connection.direction !== 'INGRESS' && connection.direction !== 'EGRESS')
    return 'direction must be INGRESS or EGRESS';
  if (!parseAddressFast(connection.srcIp, scratch)) return 'srcIp is not an IPv4 or IPv6 address';
  if (!parseAddressFast(connection.destIp, scratch)) return 'destIp is not an IPv4 or IPv6 address';
  if (parseProtocol(connection.protocol) === undefined)
    return 'protocol must be tcp, udp, icmp, icmpv6, sctp, esp, ah or a number 0-255';
  if (connection.targetTags !== undefined && !Array.isArray(connection.targetTags))
    return 'targetTags must be a list';
  if (connection.srcSecureTags !== undefined && !Array.isArray(connection.srcSecureTags))
    return 'srcSecureTags must be a list';
  return undefined;
}
