import { RESOURCE_ID } from '@rollout/contracts';
import { isIP } from 'node:net';

export interface PolicyRoute {
  cidr: string;
  policy: string;
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

export class PolicyRouteError extends Error {}

/** `10.0.0.0/8=web,2001:db8::/32=web-v6`: by destination address, longest prefix wins. */
export function parsePolicyRoutes(spec: string): PolicyRoute[] {
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^([^=\s]+)\/(\d{1,3})=(\S+)$/.exec(entry);
      if (!match)
        throw new PolicyRouteError(`"${entry}" is not <cidr>=<policy id>, e.g. 10.0.0.0/8=web`);
      const [, ip, prefixText, policy] = match;
      const version = isIP(ip);
      const prefix = Number(prefixText);
      if (version === 0) throw new PolicyRouteError(`"${entry}": ${ip} is not an IP address`);
      if (prefix > (version === 4 ? 32 : 128))
        throw new PolicyRouteError(
          `"${entry}": /${prefix} is longer than an IPv${version} address`,
        );
      if (!RESOURCE_ID.test(policy))
        throw new PolicyRouteError(
          `"${entry}": ${policy} is not a policy id (lower-case letters, digits and hyphens)`,
        );
      const bits = version === 4 ? 32 : 128;
      const network = (addressBits(ip) >> BigInt(bits - prefix)) << BigInt(bits - prefix);
      return { cidr: `${ip}/${prefix}`, policy, version, network, prefix } as PolicyRoute;
    });
}

export function policyFor(
  destIp: string,
  routes: readonly PolicyRoute[],
  fallback?: string,
): string | undefined {
  const version = isIP(destIp);
  let best: PolicyRoute | undefined;
  let bitsOfDest: bigint | undefined;
  for (const route of routes) {
    if (route.version !== version || (best && best.prefix >= route.prefix)) continue;
    bitsOfDest ??= addressBits(destIp);
    const shift = BigInt((version === 4 ? 32 : 128) - route.prefix);
    if (bitsOfDest >> shift === route.network >> shift) best = route;
  }
  return best?.policy ?? fallback;
}

function addressBits(ip: string): bigint {
  if (isIP(ip) === 4)
    return ip.split('.').reduce((bits, octet) => (bits << 8n) | BigInt(Number(octet)), 0n);
  let text = ip.replace(/%.*$/, '');
  // An IPv4 tail (::ffff:10.0.0.1) is two more groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const bits = addressBits(v4[1]);
    text =
      text.slice(0, -v4[1].length) +
      `${(bits >> 16n).toString(16)}:${(bits & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [
          ...headGroups,
          ...Array(8 - headGroups.length - tailGroups.length).fill('0'),
          ...tailGroups,
        ];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}
