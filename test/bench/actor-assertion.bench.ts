/**
 * What a signed request costs: signing (the gateway), verifying and the replay check (the
 * service's gate), with the replay check per process (as reads still do) and in the shared
 * ASSERTION_IDS bucket (create-if-absent before a state-changing handler runs), the bucket as the
 * KV view made it and as it is declared now (write-once). Next to the same run's floors: a raw
 * NATS request/reply, and a raw JetStream publish (what the KV write is). Last, what one id
 * takes in the write-once bucket, and what the bucket holds at 1,000 commands/s.
 *   npm run bench -- test/bench/actor-assertion.bench.ts   (BENCH_REQUESTS, BENCH_IN_FLIGHT)
 */
import {
  EXPERIMENT_SUBJECTS,
  ACTOR_ASSERTION_HEADER,
  ASSERTION_CLOCK_SKEW_MS,
  ASSERTION_MAX_TTL_MS,
  ASSERTION_IDS_KV,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { declareJetStream } from '@rollout/provision';
import {
  ActorAssertionGate,
  ActorAssertionSigner,
  ActorAssertionVerifier,
  SharedAssertionIds,
  generateBusKeyPair,
  parseBusKey,
} from '@rollout/platform/bus-security';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect, headers as natsHeaders } from 'nats';
import { out, percentile } from './support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Figures {
  /** Median and 99th percentile of one request alone, µs. */
  p50: number;
  p99: number;
  /** Requests per second with IN_FLIGHT at a time. */
  rate: number;
}

async function measure(run: (i: number) => Promise<unknown>): Promise<Figures> {
  for (let i = 0; i < 200; i++) await run(-i - 1); // warm up
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = process.hrtime.bigint();
    await run(i);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  let next = REQUESTS;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < 2 * REQUESTS) await run(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { p50: percentile(times, 50), p99: percentile(times, 99), rate: REQUESTS / seconds };
}

const row = (label: string, f: Figures, floor?: Figures) =>
  out(
    `${label.padEnd(58)} ${f.p50.toFixed(0).padStart(6)} µs ${f.p99.toFixed(0).padStart(6)} µs ${f.rate.toFixed(0).padStart(8)}/s` +
      (floor ? `   ${(f.p50 / floor.p50).toFixed(2)} × floor` : ''),
  );

async function main(): Promise<void> {
  const namespace = uniqueName('assertion-bench');
  const ns = new NatsNamespace(namespace);
  /** The bucket as the KV view made it before it was declared write-once. */
  const kvViewNs = new NatsNamespace(`${namespace}kv`);
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
  const service: NatsConnection = await connect({ servers: TEST_NATS_URL });
  const keys = generateBusKeyPair('bench');
  const signer = new ActorAssertionSigner(parseBusKey(keys.signingKey)!, 30_000);
  const verifier = () =>
    new ActorAssertionVerifier([parseBusKey(keys.verifyKey)!], {
      maxTtlMs: ASSERTION_MAX_TTL_MS,
      clockSkewMs: ASSERTION_CLOCK_SKEW_MS,
      namespace: ns,
    });
  await declareJetStream(service, ns, {
    kv: [ASSERTION_IDS_KV],
    streams: [
      {
        name: 'FLOOR',
        subjects: ['floor.>'],
        maxAgeMs: 60_000,
        maxBytes: -1,
        duplicateWindowMs: 0,
      },
    ],
  });
  await declareJetStream(service, kvViewNs, {
    kv: [{ ...ASSERTION_IDS_KV, writeOnce: undefined }],
  });
  const gates = {
    before: new ActorAssertionGate(verifier(), { namespace: ns }),
    kvView: new ActorAssertionGate(verifier(), {
      namespace: ns,
      sharedIds: new SharedAssertionIds(service.jetstream(), kvViewNs),
    }),
    now: new ActorAssertionGate(verifier(), {
      namespace: ns,
      sharedIds: new SharedAssertionIds(service.jetstream(), ns),
    }),
  };
  const subject = ns.subject(EXPERIMENT_SUBJECTS.stopPreview);
  const claims = { actor: 'alice', roles: ['editor'], projects: ['acme'] };
  const body = (i: number) =>
    new TextEncoder().encode(
      JSON.stringify({
        pattern: EXPERIMENT_SUBJECTS.stopPreview,
        data: { name: `projects/acme/locations/global/firewallPolicies/f/experiments/e${i}` },
        id: String(i),
      }),
    );
  // A responder that runs a gate, as a service's transport does before the handler.
  const serve = (on: string, gate?: ActorAssertionGate) =>
    service.subscribe(ns.subject(on), {
      callback: (error, message) => {
        if (error) return;
        void (async () => {
          try {
            await gate?.admit({
              subject,
              headers: message.headers,
              payload: message.data,
              data: {},
            });
            message.respond(message.data);
          } catch {
            message.respond(new TextEncoder().encode('refused'));
          }
        })();
      },
    });
  serve('floor.echo');
  serve('before', gates.before);
  serve('kv-view', gates.kvView);
  serve('now', gates.now);
  await service.flush();
  const signed = (i: number) => {
    const payload = body(i);
    const headers = natsHeaders();
    headers.set(ACTOR_ASSERTION_HEADER, signer.sign(subject, payload, claims));
    return { payload, headers };
  };
  const request = async (on: string, i: number) => {
    const { payload, headers } = signed(i);
    const reply = await nc.request(ns.subject(on), payload, { headers, timeout: 5_000 });
    if (reply.data.length === 7) throw new Error(`${on}: request ${i} was refused`);
  };

  out(
    `a signed stopPreview, ${REQUESTS} requests one at a time (p50, p99), then ${IN_FLIGHT} in flight (rate); ` +
      `${ROUNDS} interleaved rounds, the median round shown`,
  );
  const js = nc.jetstream();
  const kinds: [string, (i: number) => Promise<unknown>][] = [
    [
      'floor: raw NATS request/reply round trip',
      () => nc.request(ns.subject('floor.echo'), body(0)),
    ],
    [
      'floor: raw JetStream publish (file storage), acked',
      (i) => js.publish(ns.subject('floor.x'), body(i)),
    ],
    ['signed request, replay check before (per process)', (i) => request('before', i)],
    ['signed request, replay check shared, KV view bucket (before)', (i) => request('kv-view', i)],
    ['signed request, replay check shared, write-once (now)', (i) => request('now', i)],
  ];
  const rounds = kinds.map((): Figures[] => []);
  let offset = 0;
  for (let round = 0; round < ROUNDS; round++)
    for (const [k, [, run]] of kinds.entries()) {
      const base = (offset += 3 * REQUESTS);
      rounds[k].push(await measure((i) => run(base + i)));
    }
  const median = (figures: Figures[]) => {
    const middle = (values: number[]) =>
      values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return {
      p50: middle(figures.map((f) => f.p50)),
      p99: middle(figures.map((f) => f.p99)),
      rate: middle(figures.map((f) => f.rate)),
    };
  };
  const floor = median(rounds[0]);
  kinds.forEach(([label], k) => row(label, median(rounds[k]), k === 0 ? undefined : floor));

  // The CPU of each step alone, one after another in a tight loop.
  const perOp = (label: string, run: (i: number) => void) => {
    for (let i = 0; i < 200; i++) run(i);
    const start = process.hrtime.bigint();
    for (let i = 0; i < REQUESTS; i++) run(i);
    out(
      `${label.padEnd(58)} ${(Number(process.hrtime.bigint() - start) / 1000 / REQUESTS).toFixed(0).padStart(6)} µs CPU`,
    );
  };
  const payloads = Array.from({ length: REQUESTS }, (_, i) => body(i));
  const headersOf = payloads.map((payload) => signer.sign(subject, payload, claims));
  perOp('sign (gateway: Ed25519, SHA-256 of the payload)', (i) =>
    signer.sign(subject, payloads[i % REQUESTS], claims),
  );
  const check = verifier();
  perOp('verify (service: signature, subject, payload, expiry)', (i) =>
    check.verify(subject, payloads[i % REQUESTS], headersOf[i % REQUESTS]),
  );
  await nc.close();
  await service.close();
  const admin = await connect({ servers: TEST_NATS_URL });
  const jsm = await admin.jetstreamManager();
  const held = (await jsm.streams.info(`KV_${ns.bucket(ASSERTION_IDS_KV.bucket)}`)).state;
  const perId = held.bytes / held.messages;
  const at1000 = (ASSERTION_IDS_KV.ttlMs! / 1000) * 1000;
  out(
    `write-once bucket: ${held.messages} ids, ${held.bytes} bytes, ${perId.toFixed(0)} bytes an id (subject $KV.${ns.bucket(ASSERTION_IDS_KV.bucket)}.<uuid>); ` +
      `at 1,000 commands/s, ${at1000} ids over ${ASSERTION_IDS_KV.ttlMs! / 1000} s: ${((at1000 * perId) / 1e6).toFixed(1)} MB ` +
      `(bound ${ASSERTION_IDS_KV.writeOnce!.maxBytes} bytes)`,
  );
  for (const stream of [
    ns.stream('FLOOR'),
    `KV_${ns.bucket(ASSERTION_IDS_KV.bucket)}`,
    `KV_${kvViewNs.bucket(ASSERTION_IDS_KV.bucket)}`,
  ])
    await jsm.streams.delete(stream);
  await admin.close();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
