/**
 * What the evaluator bench evaluates: a 1,000-rule live policy, pools of distinct flows, traffic
 * made one event at a time as it is published (traffic.v1 and traffic.v2alpha), and the floor:
 * the raw JetStream pull-consume-and-ack rate of the same messages.
 */
import { FirewallRule, TrafficEvent } from '@rollout/contracts';
import { TrafficEvent as TrafficEventV2alpha } from '@rollout/contracts-alpha';
import { AckPolicy, DeliverPolicy, NatsConnection } from 'nats';
import { RULE_FLOWS } from './config';

/** A small deterministic PRNG (mulberry32), so every run evaluates the same policy and traffic. */
export function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 1,000 rules as a real policy has them: ranges of 10/8 and 172.16/12, ports, tags, some EGRESS. */
export function liveRules(random: () => number): FirewallRule[] {
  const ports = ['22', '80', '443', '3306', '5432', '6379', '8000-8080', '9000-9100'];
  return Array.from({ length: 1000 }, (_, i): FirewallRule => {
    const prefix = 16 + Math.floor(random() * 13);
    const base =
      random() < 0.7
        ? `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.0`
        : `172.${16 + Math.floor(random() * 16)}.${Math.floor(random() * 256)}.0`;
    return {
      priority: 1000 + i * 10,
      direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
      action: random() < 0.5 ? 'allow' : 'deny',
      match: {
        srcIpRanges: [`${base}/${prefix}`],
        ...(random() < 0.3 ? { destIpRanges: [`192.168.${Math.floor(random() * 256)}.0/24`] } : {}),
        layer4Configs: [
          {
            ipProtocol: random() < 0.8 ? 'tcp' : 'udp',
            ports: [ports[Math.floor(random() * ports.length)]],
          },
        ],
      },
      ...(random() < 0.2 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
    };
  });
}

/** What a flow fixes: what previewFlows aggregates by (with the deciding rules), and the instance's tags. */
export type Flow = Pick<
  TrafficEvent,
  'direction' | 'srcIp' | 'destIp' | 'protocol' | 'destPort' | 'targetTags'
>;

/** An IPv4 address as a number, and back. */
const ipv4 = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
/** A random address inside `cidr`. */
const inRange = (cidr: string, random: () => number) => {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return dotted(ipv4(base) - (ipv4(base) % size) + Math.floor(random() * size));
};

/**
 * `count` distinct flows (by direction, addresses, protocol and destination port), in random
 * order. A share of them (BENCH_RULE_FLOWS, 0.8) is aimed at a random rule of the live policy
 * (its direction, an address in its ranges, its protocol and a port of it, its tags), so the
 * deciding rules vary and a fair share of decisions change; the rest are anywhere in 10/8,
 * 172.16/12 and 192.168/16, most of them decided by the implied rules.
 */
export function flowPool(count: number, seed: number, rules: FirewallRule[]): Flow[] {
  const random = prng(seed);
  const ports = [22, 80, 443, 3306, 5432, 6379, 8042, 9050, 53, 123];
  const byte = () => Math.floor(random() * 256);
  const seen = new Set<string>();
  const flows: Flow[] = [];
  while (flows.length < count) {
    let flow: Flow;
    if (random() < RULE_FLOWS) {
      const rule = rules[Math.floor(random() * rules.length)];
      const l4 = rule.match.layer4Configs?.[0];
      const [low, high = low] = (
        l4?.ports?.[0] ?? String(ports[Math.floor(random() * ports.length)])
      )
        .split('-')
        .map(Number);
      flow = {
        direction: rule.direction ?? 'INGRESS',
        srcIp: inRange(rule.match.srcIpRanges?.[0] ?? '10.0.0.0/8', random),
        destIp: inRange(rule.match.destIpRanges?.[0] ?? '192.168.0.0/16', random),
        protocol: (l4?.ipProtocol ?? 'tcp') as TrafficEvent['protocol'],
        destPort: low + Math.floor(random() * (high - low + 1)),
        ...(rule.targetTags
          ? { targetTags: rule.targetTags }
          : random() < 0.3
            ? { targetTags: [`tier-${Math.floor(random() * 4)}`] }
            : {}),
      };
    } else {
      flow = {
        direction: random() < 0.9 ? 'INGRESS' : 'EGRESS',
        srcIp:
          random() < 0.85
            ? `10.${byte()}.${byte()}.${byte()}`
            : `172.${16 + Math.floor(random() * 16)}.${byte()}.${byte()}`,
        destIp: `192.168.${byte()}.${byte()}`,
        protocol: random() < 0.85 ? 'tcp' : 'udp',
        destPort: ports[Math.floor(random() * ports.length)],
        ...(random() < 0.3 ? { targetTags: [`tier-${Math.floor(random() * 4)}`] } : {}),
      };
    }
    const key = `${flow.direction} ${flow.srcIp} ${flow.destIp} ${flow.protocol} ${flow.destPort}`;
    if (seen.has(key)) continue;
    seen.add(key);
    flows.push(flow);
  }
  return flows;
}

/** Event times move forward across the whole run, one ms per event. */
let clock = Date.parse('2025-06-01T00:00:00Z');

/**
 * `count` events that go round the flows in turn (so every flow is seen once `count` ≥ the
 * flows, and consecutive events are of different flows), made one at a time as they are
 * published: 2 million events are never held at once.
 */
export interface Traffic {
  count: number;
  flows: number;
  at(i: number): TrafficEvent;
}
export function trafficOf(flows: Flow[], count: number, tag: string): Traffic {
  const start = clock;
  clock += count;
  return {
    count,
    flows: Math.min(flows.length, count),
    at: (i) => ({
      id: `${tag}-${i}`,
      time: new Date(start + i).toISOString(),
      ...flows[i % flows.length],
      srcPort: 1024 + ((Math.imul(i + 1, 2654435761) >>> 0) % 60000),
    }),
  };
}

/** traffic.v1: one event per message, published in parallel windows of 2,000. */
export async function publishAll(
  nc: NatsConnection,
  subject: string,
  traffic: Traffic,
): Promise<{ first: number; last: number; messages: number }> {
  const js = nc.jetstream();
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  for (let i = 0; i < traffic.count; i += 2000) {
    const window: Promise<{ seq: number }>[] = [];
    for (let j = i; j < Math.min(traffic.count, i + 2000); j++) {
      const event = traffic.at(j);
      window.push(js.publish(subject, JSON.stringify(event), { msgID: event.id }));
    }
    for (const ack of await Promise.all(window)) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last, messages: traffic.count };
}

/** A traffic.v1 event in traffic.v2alpha's spelling (address fields spelled out). */
export const toV2alpha = ({
  srcIp,
  destIp,
  srcPort,
  destPort,
  ...rest
}: TrafficEvent): TrafficEventV2alpha => ({
  ...rest,
  sourceIp: srcIp,
  destinationIp: destIp,
  sourcePort: srcPort,
  destinationPort: destPort,
});

/** traffic.v2alpha: the same events in batches of `size`, address fields spelled out, 50 batches in parallel. */
export async function publishBatches(
  nc: NatsConnection,
  subject: string,
  traffic: Traffic,
  size: number,
): Promise<{ first: number; last: number; messages: number }> {
  const js = nc.jetstream();
  let first = Number.MAX_SAFE_INTEGER;
  let last = 0;
  let messages = 0;
  for (let i = 0; i < traffic.count; i += size * 50) {
    const window: Promise<{ seq: number }>[] = [];
    for (let j = i; j < Math.min(traffic.count, i + size * 50); j += size) {
      const batch: TrafficEventV2alpha[] = [];
      for (let k = j; k < Math.min(traffic.count, j + size); k++)
        batch.push(toV2alpha(traffic.at(k)));
      window.push(
        js.publish(subject, JSON.stringify({ events: batch }), { msgID: `batch-${batch[0].id}` }),
      );
    }
    messages += window.length;
    for (const ack of await Promise.all(window)) {
      first = Math.min(first, ack.seq);
      last = Math.max(last, ack.seq);
    }
  }
  return { first, last, messages };
}

/**
 * The baseline: a durable pull consumer over the same messages, each acknowledged, nothing else.
 * Also the CPU that consuming alone costs this Node process per message (the NATS client's
 * share of any consumer's work, before it does anything with a message).
 */
export async function rawRate(
  nc: NatsConnection,
  stream: string,
  first: number,
  count: number,
): Promise<{ rate: number; cpuPerMessageUs: number }> {
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream, {
    durable_name: 'raw-baseline',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: first,
    max_ack_pending: 20_000,
  });
  const consumer = await nc.jetstream().consumers.get(stream, 'raw-baseline');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const messages = await consumer.consume({ max_messages: 3000 });
  let n = 0;
  for await (const message of messages) {
    message.ack();
    if (++n === count) break;
  }
  await nc.flush();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await jsm.consumers.delete(stream, 'raw-baseline');
  return { rate: count / seconds, cpuPerMessageUs: (cpu.user + cpu.system) / count };
}
