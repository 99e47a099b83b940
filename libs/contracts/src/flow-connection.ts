import type { PreviewConnection, PreviewDisagreementFlow, PreviewFlow } from './preview/v1';
import type { TrafficEvent, TrafficProtocol } from './traffic/v1';

/** Traffic and logs carry the protocol as a name or a number, flows as text. */
export interface FlowConnection<Protocol extends string | number = TrafficProtocol> {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: Protocol;
  /** Absent for connections without ports. */
  destPort?: number;
  /** Of the instance reached (INGRESS) or left (EGRESS). */
  targetTags?: readonly string[];
  /** Or workload labels, as rules' `srcSecureTags` name them. */
  srcSecureTags?: readonly string[];
}

/**
 * Wire messages repeat the fields rather than extend FlowConnection (the schema generator would
 * reorder `required` and replace field docs); this makes a drift fail to compile.
 */
type Binds<Message extends Shape, Shape> = Message;
export type ConnectionMessages =
  | Binds<TrafficEvent, FlowConnection>
  | Binds<PreviewConnection, FlowConnection>
  | Binds<PreviewFlow, FlowConnection<string>>
  | Binds<PreviewDisagreementFlow, FlowConnection<string>>;
