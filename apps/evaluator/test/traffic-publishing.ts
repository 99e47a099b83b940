import { TRAFFIC_DURABLE, TRAFFIC_STREAM, TrafficEvent, trafficSubject } from '@rollout/contracts';
import {
  TrafficEvent as TrafficEventV2alpha,
  trafficV2alphaSubject,
} from '@rollout/contracts-alpha';
import { NatsConnection, headers as natsHeaders } from 'nats';
import type { Isolation } from './evaluator-app';
import { T0 } from './experiment-world';

/** Test helpers: traffic as producers publish it, in both majors, and when the evaluator has settled it. */

let counter = 0;

/** A traffic event; `n` spreads sources over 10.0.{n/256}.{n%256}. */
export function trafficEvent(n: number, overrides: Partial<TrafficEvent> = {}): TrafficEvent {
  return {
    id: `evt-${n}-${(counter++).toString(36)}`,
    time: new Date(Date.parse(T0) + n * 1000).toISOString(),
    direction: 'INGRESS',
    srcIp: `10.0.${(n >> 8) & 255}.${n & 255}`,
    destIp: '192.0.2.10',
    protocol: 'tcp',
    srcPort: 40000 + (n % 1000),
    destPort: 22,
    ...overrides,
  };
}

/** Publishes as a producer does: Nats-Msg-Id = event id. Returns the last stream sequence. */
export async function publishTraffic(
  nc: NatsConnection,
  iso: Isolation,
  policy: string,
  events: (TrafficEvent | string)[],
  world = { project: 'acme', location: 'global' },
): Promise<number> {
  const js = nc.jetstream();
  const subject = iso.ns.subject(trafficSubject(world.project, world.location, policy));
  let last = 0;
  for (let i = 0; i < events.length; i += 1000) {
    const acks = await Promise.all(
      events
        .slice(i, i + 1000)
        .map((event) =>
          typeof event === 'string'
            ? js.publish(subject, event)
            : js.publish(subject, JSON.stringify(event), { msgID: event.id }),
        ),
    );
    last = Math.max(last, ...acks.map((ack) => ack.seq));
  }
  return last;
}

/** A traffic.v1 event as traffic.v2alpha spells it (the same event). */
export function toV2alpha(event: TrafficEvent): TrafficEventV2alpha {
  const { srcIp, destIp, srcPort, destPort, ...rest } = event;
  const out: TrafficEventV2alpha = { ...rest, sourceIp: srcIp, destinationIp: destIp };
  if (srcPort !== undefined) out.sourcePort = srcPort;
  if (destPort !== undefined) out.destinationPort = destPort;
  return out;
}

let batchCounter = 0;

/**
 * Publishes traffic.v2alpha batches of these (v1) events, `batchSize` per message, with a
 * Nats-Msg-Id of its own per batch and the given headers. Returns the last stream sequence.
 */
export async function publishTrafficBatches(
  nc: NatsConnection,
  iso: Isolation,
  policy: string,
  events: TrafficEvent[],
  {
    batchSize = 100,
    headers = {},
    world = { project: 'acme', location: 'global' },
  }: {
    batchSize?: number;
    headers?: Record<string, string>;
    world?: { project: string; location: string };
  } = {},
): Promise<number> {
  const js = nc.jetstream();
  const subject = iso.ns.subject(trafficV2alphaSubject(world.project, world.location, policy));
  const batches: TrafficEvent[][] = [];
  for (let i = 0; i < events.length; i += batchSize) batches.push(events.slice(i, i + batchSize));
  const acks = await Promise.all(
    batches.map((batch) => {
      const hdrs = natsHeaders();
      for (const [name, value] of Object.entries(headers)) hdrs.set(name, value);
      return js.publish(subject, JSON.stringify({ events: batch.map(toV2alpha) }), {
        msgID: `batch-${(batchCounter++).toString(36)}-${batch[0].id}`,
        headers: hdrs,
      });
    }),
  );
  return Math.max(0, ...acks.map((ack) => ack.seq));
}

/** Resolves when the evaluator's durable consumer has settled every traffic message up to `seq`. */
export async function settledUpTo(
  nc: NatsConnection,
  iso: Isolation,
  seq: number,
): Promise<boolean | undefined> {
  const info = await (
    await nc.jetstreamManager()
  ).consumers.info(iso.ns.stream(TRAFFIC_STREAM), TRAFFIC_DURABLE);
  return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 ? true : undefined;
}

/** Every kind of outcome: allow → deny, unchanged allow and deny, a protocol number, IPv6 egress, tags, no ports. */
export const varied = (offset: number): TrafficEvent[] =>
  Array.from({ length: 40 }, (_, i) => {
    const n = offset + i;
    switch (i % 5) {
      case 0:
        return trafficEvent(n, { srcIp: `10.0.1.${i}`, destPort: 22 });
      case 1:
        return trafficEvent(n, {
          srcIp: `10.0.2.${i}`,
          destPort: 443,
          protocol: 6,
          targetTags: ['web'],
        });
      case 2:
        return trafficEvent(n, { srcIp: `203.0.113.${i}` });
      case 3:
        return trafficEvent(n, {
          srcIp: `2001:db8::${i.toString(16)}`,
          destIp: '2001:db8::1',
          direction: 'EGRESS',
          destPort: 80,
        });
      default: {
        const {
          srcPort: _s,
          destPort: _d,
          ...event
        } = trafficEvent(n, { srcIp: `10.0.1.${i}`, protocol: 'icmp' });
        return event;
      }
    }
  });
