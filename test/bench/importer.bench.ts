/**
 * The flow-log importer on a seeded Zeek conn.log of BENCH_LINES lines: the events/s
 * `importFlows` publishes (reading, parsing, ids, every ack awaited), next to the raw JetStream
 * publish rate of the same events already serialised, with the same ids and publish window. Each
 * side gets a fresh TRAFFIC stream; rounds alternate raw and importer so drift hits both.
 *
 *   npm run bench -- test/bench/importer.bench.ts   (BENCH_LINES, BENCH_ROUNDS)
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  TRAFFIC_STREAM,
  TRAFFIC_STREAM_LIMITS,
  TRAFFIC_STREAM_SUBJECTS,
  TrafficEvent,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { declareJetStream } from '@rollout/provision';
import { TEST_NATS_URL, prng, uniqueName } from '@rollout/testing/kit';
import { ImportSummary, importFlows, resolveInputs } from '@rollout/traffic-importer';
import { NatsConnection, connect } from 'nats';
import { out } from './support';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IN_FLIGHT = 1024;
const FIELDS = [
  'ts',
  'uid',
  'id.orig_h',
  'id.orig_p',
  'id.resp_h',
  'id.resp_p',
  'proto',
  'service',
  'duration',
  'orig_bytes',
  'resp_bytes',
  'conn_state',
  'local_orig',
  'local_resp',
  'missed_bytes',
  'history',
  'orig_pkts',
  'orig_ip_bytes',
  'resp_pkts',
  'resp_ip_bytes',
  'tunnel_parents',
];

async function writeConnLog(path: string): Promise<void> {
  const random = prng(22);
  const file = createWriteStream(path);
  const write = async (line: string) => {
    if (!file.write(`${line}\n`)) await once(file, 'drain');
  };
  await write('#separator \\x09');
  await write('#unset_field\t-');
  await write(`#fields\t${FIELDS.join('\t')}`);
  const host = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const services = [
    [22, 'ssh'],
    [53, 'dns'],
    [80, 'http'],
    [443, 'ssl'],
    [3306, 'mysql'],
    [5432, '-'],
    [6379, '-'],
    [8080, 'http'],
    [8443, 'ssl'],
    [9090, '-'],
    [25, 'smtp'],
    [123, 'ntp'],
  ] as const;
  let ts = 1_700_000_000;
  for (let i = 0; i < LINES; i++) {
    ts += random.next() / 100;
    const [port, service] = random.pick(services);
    const proto = port === 53 || port === 123 ? 'udp' : 'tcp';
    const inbound = random.chance(0.3);
    const origin = inbound ? `203.0.${random.int(256)}.${random.int(256)}` : host(random.int(5000));
    await write(
      [
        ts.toFixed(6),
        `C${i.toString(36)}`,
        origin,
        1024 + random.int(64000),
        host(random.int(5000)),
        port,
        proto,
        service,
        '0.05',
        '120',
        '480',
        'SF',
        inbound ? 'F' : 'T',
        'T',
        '0',
        'ShADadFf',
        '6',
        '440',
        '4',
        '688',
        '-',
      ].join('\t'),
    );
  }
  file.end();
  await once(file, 'finish');
}

async function withTrafficStream<T>(
  nc: NatsConnection,
  run: (namespace: string) => Promise<T>,
): Promise<T> {
  const namespace = uniqueName('bench');
  const ns = new NatsNamespace(namespace);
  await declareJetStream(nc, ns, {
    streams: [
      {
        name: TRAFFIC_STREAM,
        subjects: [TRAFFIC_STREAM_SUBJECTS],
        maxAgeMs: 3_600_000,
        maxBytes: TRAFFIC_STREAM_LIMITS.maxBytes,
        duplicateWindowMs: TRAFFIC_STREAM_LIMITS.duplicateWindowMs,
      },
    ],
  });
  try {
    return await run(namespace);
  } finally {
    await (await nc.jetstreamManager()).streams.delete(ns.stream(TRAFFIC_STREAM));
  }
}

/** The floor: the same events, already serialised, published with the same window in flight. */
async function rawPublishRate(
  nc: NatsConnection,
  namespace: string,
  events: { subject: string; id: string; data: string }[],
): Promise<{ rate: number; cpuUs: number }> {
  const js = nc.jetstream();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let stored = 0;
  for (const event of events) {
    while (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
    inFlight++;
    void js
      .publish(new NatsNamespace(namespace).subject(event.subject), event.data, { msgID: event.id })
      .then((ack) => {
        if (!ack.duplicate) stored++;
        inFlight--;
        const resume = wake;
        wake = undefined;
        resume?.();
      });
  }
  while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve));
  if (stored !== events.length) throw new Error(`raw publish stored ${stored} of ${events.length}`);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    rate: events.length / ((performance.now() - started) / 1000),
    cpuUs: (cpu.user + cpu.system) / events.length,
  };
}

/** What the importer published, read back from its stream: the floor publishes exactly these. */
async function publishedEvents(
  nc: NatsConnection,
  namespace: string,
  count: number,
): Promise<{ subject: string; id: string; data: string }[]> {
  const ns = new NatsNamespace(namespace);
  const consumer = await nc.jetstream().consumers.get(ns.stream(TRAFFIC_STREAM));
  const events: { subject: string; id: string; data: string }[] = [];
  const messages = await consumer.consume({ max_messages: 5000 });
  for await (const message of messages) {
    events.push({
      subject: message.subject.slice(namespace.length + 1),
      id: message.json<TrafficEvent>().id,
      data: message.string(),
    });
    if (events.length === count) break;
  }
  return events;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'importer-bench-'));
  const path = join(dir, 'conn.log');
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    await writeConnLog(path);
    out(
      `importer benchmark: Zeek conn.log, ${LINES.toLocaleString('en-US')} lines, ${((await stat(path)).size / 1e6).toFixed(0)} MB, ${ROUNDS} rounds`,
    );
    let events: { subject: string; id: string; data: string }[] = [];
    const rows: { importer: number; raw: number }[] = [];
    let importerCpuUs = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const cpuBefore = process.cpuUsage();
      const summary: ImportSummary = await withTrafficStream(nc, async (namespace) => {
        const result = await importFlows(nc, {
          format: 'zeek',
          inputs: await resolveInputs([path]),
          project: 'bench',
          location: 'global',
          policy: 'edge',
          routes: [],
          defaultDirection: 'INGRESS',
          idKey: randomBytes(32),
          restamp: false,
          rounds: 1,
          namespace,
          maxInFlight: IN_FLIGHT,
        });
        const cpu = process.cpuUsage(cpuBefore);
        importerCpuUs = (cpu.user + cpu.system) / result.published;
        if (events.length === 0) events = await publishedEvents(nc, namespace, result.published);
        return result;
      });
      if (summary.published !== LINES)
        throw new Error(`the importer published ${summary.published} of ${LINES} events`);
      const raw = await withTrafficStream(nc, (namespace) => rawPublishRate(nc, namespace, events));
      const importer = (summary.published * 1000) / summary.elapsedMs;
      rows.push({ importer, raw: raw.rate });
      out(
        `  round ${round}: importer ${Math.round(importer).toLocaleString('en-US')} events/s (${(summary.elapsedMs / 1000).toFixed(1)} s, ${importerCpuUs.toFixed(0)} µs CPU per event), ` +
          `raw JetStream publish ${Math.round(raw.rate).toLocaleString('en-US')} events/s (${raw.cpuUs.toFixed(0)} µs CPU per event): ${(importer / raw.rate).toFixed(2)} × raw`,
      );
    }
    const ratios = rows.map(({ importer, raw }) => importer / raw);
    out(
      `importer / raw publish: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} × (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs)`,
    );
  } finally {
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  }
}

void main();
