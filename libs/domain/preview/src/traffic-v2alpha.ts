import type { TrafficEvent } from '@rollout/contracts';
import type { TrafficEvent as TrafficEventV2alpha } from '@rollout/contracts-alpha';

/** A traffic.v2alpha event in the v1 shape (fields spelled as v1 does; nothing else differs). */
export function fromV2alpha(event: TrafficEventV2alpha): TrafficEvent {
  const out: TrafficEvent = {
    id: event.id,
    time: event.time,
    direction: event.direction,
    srcIp: event.sourceIp,
    destIp: event.destinationIp,
    protocol: event.protocol,
  };
  if (event.sourcePort !== undefined) out.srcPort = event.sourcePort;
  if (event.destinationPort !== undefined) out.destPort = event.destinationPort;
  if (event.targetTags !== undefined) out.targetTags = event.targetTags;
  if (event.sourceSecureTags !== undefined) out.srcSecureTags = event.sourceSecureTags;
  return out;
}
