import type { PreviewConnection, PreviewDisagreementFlow, PreviewFlow } from './preview/v1';
import type { TrafficEvent, TrafficProtocol } from './traffic/v1';

/**
 * The one shape of a connection: which way it went, between which addresses, over which
 * protocol and destination port, from which tagged source, to or from which tagged instance. Traffic events and preview
 * logs carry the protocol as a name or a number (`TrafficProtocol`); flows, keyed without the
 * source port and tags, carry its name text (`FlowConnection<string>`); the firewall engine
 * takes either (`FlowConnection<string | number>`).
 */
export interface FlowConnection<Protocol extends string | number = TrafficProtocol> {
  direction: 'INGRESS' | 'EGRESS';
  /** IPv4 or IPv6 address. */
  srcIp: string;
  destIp: string;
  protocol: Protocol;
  /** Absent for connections without ports. */
  destPort?: number;
  /** Network tags of the instance the connection reached (INGRESS) or left (EGRESS). */
  targetTags?: readonly string[];
  /** Secure tags (or workload labels) of the connection's source, as rules' `srcSecureTags` name them. */
  srcSecureTags?: readonly string[];
}

/**
 * The wire messages that carry a connection list its fields themselves rather than extend
 * FlowConnection: the schema generator would reorder their `required` lists and replace their
 * per-message field docs, changing the published schemas. This binds each of them to
 * FlowConnection instead, so a message whose connection fields drift from it does not compile.
 */
type Binds<Message extends Shape, Shape> = Message;
export type ConnectionMessages =
  | Binds<TrafficEvent, FlowConnection>
  | Binds<PreviewConnection, FlowConnection>
  | Binds<PreviewFlow, FlowConnection<string>>
  | Binds<PreviewDisagreementFlow, FlowConnection<string>>;
