/**
 * The hot-path parser walks characters instead of splitting strings or using BigInt, and accepts
 * exactly what node's `net.isIP` accepts (the rule validator), so a valid rule always compiles.
 */

export interface ParsedAddress {
  readonly family: 4 | 6;
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
}

/** One class keeps every hot-path property read monomorphic; mutable so `evaluate` can reuse scratch instances. */
export class AddressBox implements ParsedAddress {
  family: 4 | 6 = 4;
  w0 = 0;
  w1 = 0;
  w2 = 0;
  w3 = 0;
}

/** Characters node allows in an IPv6 zone id ("fe80::1%eth0"); the zone never affects matching. */
const isZoneChar = (c: number) =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 45 ||
  c === 46 ||
  c === 58;

/** Dotted-quad IPv4 in text[start, end) as an unsigned number, or -1. Leading zeros are refused, as node does. */
function parseV4(text: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 48; // '0' → 0 … '9' → 9, '.' → -2
    if (d >= 0 && d <= 9) {
      if (digits === 1 && octet === 0) return -1; // "01": ambiguous (octal in some parsers), refused
      octet = octet * 10 + d;
      if (octet > 255) return -1;
      digits++;
    } else if (d === -2) {
      if (digits === 0 || parts === 3) return -1;
      value = value * 256 + octet;
      parts++;
      octet = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (digits === 0 || parts !== 3) return -1;
  return value * 256 + octet;
}

const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX[48 + c] = c;
for (let c = 0; c < 6; c++) HEX[97 + c] = HEX[65 + c] = 10 + c;

/** Scratch for the up to eight 16-bit groups of an IPv6 address (evaluation is synchronous). */
const groups = new Int32Array(8);

function parseV6(text: string, out: AddressBox): boolean {
  let end = text.length;
  const zone = text.indexOf('%');
  if (zone >= 0) {
    if (zone === end - 1) return false;
    for (let z = zone + 1; z < end; z++) if (!isZoneChar(text.charCodeAt(z))) return false;
    end = zone;
  }
  let count = 0;
  let gap = -1; // index in `groups` where "::" stands
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    const groupStart = i;
    let value = 0;
    let c = i < end ? text.charCodeAt(i) : -1;
    let h = c >= 0 && c < 128 ? HEX[c] : -1;
    while (h >= 0) {
      if (i - groupStart === 4) return false; // more than four hex digits
      value = (value << 4) | h;
      c = ++i < end ? text.charCodeAt(i) : -1;
      h = c >= 0 && c < 128 ? HEX[c] : -1;
    }
    if (c === 46) {
      // An embedded IPv4 tail ("::ffff:192.0.2.1") fills the last two groups and ends the address.
      const v4 = count <= 6 ? parseV4(text, groupStart, end) : -1;
      if (v4 < 0) return false;
      groups[count++] = Math.floor(v4 / 65536);
      groups[count++] = v4 & 0xffff;
      break;
    }
    if (i === groupStart || count === 8) return false;
    groups[count++] = value;
    if (i === end) break;
    if (c !== 58) return false;
    i++;
    if (i < end && text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
    } else if (i === end) {
      return false; // a single trailing colon
    }
  }
  if (gap < 0 ? count !== 8 : count > 7) return false;
  // Expand "::" into the zero groups it stands for, then pack pairs of groups into words.
  const missing = 8 - count;
  out.family = 6;
  out.w0 = groupAt(0, gap, missing) * 65536 + groupAt(1, gap, missing);
  out.w1 = groupAt(2, gap, missing) * 65536 + groupAt(3, gap, missing);
  out.w2 = groupAt(4, gap, missing) * 65536 + groupAt(5, gap, missing);
  out.w3 = groupAt(6, gap, missing) * 65536 + groupAt(7, gap, missing);
  return true;
}

/** Group g of the eight, with the `missing` zero groups of "::" (at index `gap`, -1 if none) expanded. */
function groupAt(g: number, gap: number, missing: number): number {
  if (gap < 0 || g < gap) return groups[g];
  return g < gap + missing ? 0 : groups[g - missing];
}

/**
 * An IPv4-mapped IPv6 address (RFC 4291 2.5.5.2) is the IPv4 address it maps: dual-stack sockets
 * report IPv4 peers that way.
 */
export function parseAddressInto(text: string, out: AddressBox): boolean {
  if (!parseAddressAsWritten(text, out)) return false;
  if (out.family === 6 && out.w0 === 0 && out.w1 === 0 && out.w2 === 0xffff) {
    out.family = 4;
    out.w0 = out.w3;
    out.w2 = 0;
    out.w3 = 0;
  }
  return true;
}

/** Parses without unmapping IPv4-mapped addresses; ranges need the family they were written in. */
function parseAddressAsWritten(text: string, out: AddressBox): boolean {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) return false;
  // IPv4 first: most traffic is IPv4, and an IPv6 address fails within its first five characters.
  const v4 = parseV4(text, 0, text.length);
  if (v4 >= 0) {
    out.family = 4;
    out.w0 = v4;
    out.w1 = 0;
    out.w2 = 0;
    out.w3 = 0;
    return true;
  }
  return parseV6(text, out);
}

export function parseAddress(text: string): ParsedAddress | undefined {
  const out = new AddressBox();
  return parseAddressInto(text, out) ? out : undefined;
}

export interface AddressRange {
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

export function addressToBigInt(address: ParsedAddress): bigint {
  if (address.family === 4) return BigInt(address.w0);
  return (
    (BigInt(address.w0) << 96n) |
    (BigInt(address.w1) << 64n) |
    (BigInt(address.w2) << 32n) |
    BigInt(address.w3)
  );
}

/**
 * Host bits below the prefix are ignored. A range inside ::ffff:0:0/96 (prefix ≥ 96) is the IPv4
 * range it maps; a shorter IPv6 prefix never matches an IPv4-mapped address.
 */
export function parseRange(text: string): AddressRange | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  const address = new AddressBox();
  if (!parseAddressAsWritten(slash < 0 ? text : text.slice(0, slash), address)) return undefined;
  const bits = address.family === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const digits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits)) return undefined;
    prefix = Number(digits);
    if (prefix > bits) return undefined;
  }
  const hostBits = BigInt(bits - prefix);
  const hostMask = (1n << hostBits) - 1n;
  const first = addressToBigInt(address) & ~hostMask;
  if (address.family === 6 && prefix >= 96 && first >> 32n === 0xffffn /* ::ffff:0:0/96 */) {
    return { family: 4, first: first & 0xffffffffn, last: (first | hostMask) & 0xffffffffn };
  }
  return { family: address.family, first, last: first | hostMask };
}
