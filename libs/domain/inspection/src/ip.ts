import { RuleError } from './errors';
import { typeName } from './values';

interface Address {
  family: 4 | 6;
  value: bigint;
}

function parseV4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseV6(text: string): bigint | undefined {
  let rest = text.replace(/%.*$/, ''); // a zone index names an interface, not an address
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (v4) {
    const value = parseV4(v4[1]);
    if (value === undefined) return undefined;
    tail = [Number(value >> 16n), Number(value & 0xffffn)];
    rest = rest.slice(0, -v4[1].length);
    if (rest.endsWith(':') && !rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const group = (s: string) => (s === '' ? [] : s.split(':'));
  const head = group(halves[0]);
  const after = halves.length === 2 ? group(halves[1]) : [];
  const groups = [...head, ...after];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const total = groups.length + tail.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return undefined;
  const words = [
    ...head.map((g) => parseInt(g, 16)),
    ...Array<number>(8 - total).fill(0),
    ...after.map((g) => parseInt(g, 16)),
    ...tail,
  ];
  return words.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

export function parseAddress(text: string): Address | undefined {
  const trimmed = text.trim();
  if (trimmed.includes(':')) {
    const value = parseV6(trimmed);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseV4(trimmed);
  return value === undefined ? undefined : { family: 4, value };
}

const subnets = new Map<string, { net: Address; shift: bigint }>();

function parseSubnet(subnet: string): { net: Address; shift: bigint } {
  const cached = subnets.get(subnet);
  if (cached) return cached;
  const [base, lengthText, ...extra] = subnet.trim().split('/');
  const net = parseAddress(base);
  const bits = net?.family === 6 ? 128 : 32;
  const length =
    lengthText === undefined ? bits : /^\d{1,3}$/.test(lengthText) ? Number(lengthText) : NaN;
  if (!net || extra.length || !(length >= 0 && length <= bits)) {
    throw new RuleError(`in-net: ${JSON.stringify(subnet)} is not a subnet`);
  }
  const parsed = { net, shift: BigInt(bits - length) };
  if (subnets.size > 10_000) subnets.clear();
  subnets.set(subnet, parsed);
  return parsed;
}

/** Addresses repeat across the rules of an event: parse each once. */
const addresses = new Map<string, Address | null>();

function cachedAddress(text: string): Address | undefined {
  if (text.length > 64) return undefined; // no address is that long
  let parsed = addresses.get(text);
  if (parsed === undefined) {
    parsed = parseAddress(text) ?? null;
    if (addresses.size > 10_000) addresses.clear();
    addresses.set(text, parsed);
  }
  return parsed ?? undefined;
}

export function inNet(address: unknown, subnet: unknown): boolean {
  if (typeof subnet !== 'string')
    throw new RuleError('in-net needs a subnet string such as 10.0.0.0/8');
  const { net, shift } = parseSubnet(subnet);
  // As Ironic (netaddr): an error, never a silent non-match that `!in-net` would turn into a match.
  const parsed = typeof address === 'string' ? cachedAddress(address) : undefined;
  if (!parsed)
    throw new RuleError(
      `in-net: ${typeof address === 'string' ? JSON.stringify(address.slice(0, 64)) : typeName(address)} is not an IP address`,
    );
  if (parsed.family !== net.family) return false;
  return parsed.value >> shift === net.value >> shift;
}
