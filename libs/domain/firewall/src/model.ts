/**
 * The firewall policy model, as GCP firewall policies have it: ordered rules (lower priority
 * wins, priorities unique in a policy), each matching direction, source/destination ranges
 * (IPv4 and IPv6) and layer-4 protocols/ports, with an allow or deny action. The wire shapes
 * live in the contracts (experiment.v1); this file holds what the domain knows about them.
 * Validation is in validation.ts; an evaluation engine belongs in its own file beside them.
 */
export type {
  Direction,
  FirewallRule,
  Layer4Config,
  PolicyContent,
  RuleAction,
  RuleMatch,
} from '@rollout/contracts';
import { PROTOCOL_NUMBERS } from '@rollout/contracts';

export const MIN_PRIORITY = 0;
export const MAX_PRIORITY = 65535;

/** Protocols by name; any other is given by its IP protocol number, 0-255. */
export const NAMED_PROTOCOLS: ReadonlySet<string> = new Set([
  'tcp',
  'udp',
  'icmp',
  'icmpv6',
  'sctp',
  'esp',
  'ah',
  'all',
]);

/** Protocols that have ports (by name or number: tcp 6, udp 17, sctp 132). */
export const PORTED_PROTOCOLS: ReadonlySet<string> = new Set([
  'tcp',
  'udp',
  'sctp',
  '6',
  '17',
  '132',
]);

/** A rule's protocol names: the IANA numbers of the named protocols, and `all` for every protocol. */
export const RULE_PROTOCOL_NUMBERS: Readonly<Record<string, number | 'all'>> = {
  ...PROTOCOL_NUMBERS,
  all: 'all',
};
