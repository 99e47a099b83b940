/** GCP firewall policy semantics: lower priority wins, priorities unique; wire shapes in the contracts (experiment.v1). */
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

export const RULE_PROTOCOL_NUMBERS: Readonly<Record<string, number | 'all'>> = {
  ...PROTOCOL_NUMBERS,
  all: 'all',
};
