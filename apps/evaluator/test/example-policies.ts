import { FirewallRule, TrafficEvent } from '@rollout/contracts';
import { trafficEvent } from './traffic-publishing';

/** Test fixtures: the live policy most specs preview against, and the change under test. */

export const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
  extra: Partial<FirewallRule> = {},
): FirewallRule => ({ priority, direction: 'INGRESS', action, match, ...extra });

/** SSH and HTTPS from 10/8, nothing else. */
export const LIVE = [
  rule(100, 'allow', {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
  }),
  rule(200, 'deny', { srcIpRanges: ['0.0.0.0/0'] }),
];

/** The change under test: no more SSH from 10.0.1.0/24. */
export const BLOCK = [
  rule(50, 'deny', {
    srcIpRanges: ['10.0.1.0/24'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  ...LIVE,
];

/** Five events of `web`, one of each outcome against LIVE and BLOCK (ids new on every call). */
export const exampleEvents = (): TrafficEvent[] => [
  trafficEvent(10, { srcIp: '10.0.1.5', destPort: 22 }), // SSH from the blocked range: allow → deny
  trafficEvent(11, { srcIp: '10.0.2.5', destPort: 22 }), // SSH from elsewhere in 10/8: allowed by both
  trafficEvent(12, { srcIp: '203.0.113.9', destPort: 22 }), // outside 10/8: denied by both (rule 200)
  trafficEvent(13, { srcIp: '10.0.1.5', destPort: 443, protocol: 6 }), // HTTPS, by protocol number
  trafficEvent(14, { srcIp: '2001:db8::5', destPort: 80, direction: 'EGRESS' }), // EGRESS: implied allow
];
