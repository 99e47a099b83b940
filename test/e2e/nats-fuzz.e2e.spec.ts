import {
  INSPECTION_PHASES,
  InspectionResult,
  TRAFFIC_STREAM,
  TrafficEvent,
  inspectionEventSubject,
  trafficSubject,
  DEAD_LETTER_STREAM,
} from '@rollout/contracts';
import { RunningSystem, SERVICES, ServiceName, launch } from '@rollout/launcher';
import { DEAD_LETTER_REASON_HEADER, NatsNamespace } from '@rollout/platform/nats';
import { Rng, TEST_NATS_URL, prng, JsonBody } from '@rollout/testing/kit';
import { JsMsg, NatsConnection, PubAck, connect } from 'nats';
import { DIST, isolatedSettings, processesOf, removeRun } from './support';

/**
 * Hostile input on the event side: 10,000 generated malformed traffic and inspection events
 * (random bytes, bad JSON, bad UTF-8, deep nesting, huge strings, wrong types, missing fields,
 * bad addresses, subjects naming no live policy, injection strings, control characters)
 * published into the launched system's TRAFFIC and INSPECTION streams, with valid events
 * interleaved. No consumer may crash (every service still ready, with the same pid), every
 * malformed event must reach the dead-letter subject exactly once with a reason (matched by its
 * stream sequence, and by content), and every valid event must be processed: counted in the
 * experiment's preview report (traffic) or answered on inspection.v1.results (inspection).
 * The generator is seeded: FUZZ_SEED=<n> explores other inputs; a failure names its seed.
 */
const MALFORMED = 10_000;
/** About one valid event per ten malformed ones. */
const VALID_SHARE = 0.1;
const SEED = Number(process.env.FUZZ_SEED ?? 7);
const INSPECTION_STREAM = 'INSPECTION';
const INSPECTION_RESULTS_STREAM = 'INSPECTION_RESULTS';
/** How long the consumers get to settle everything; a stuck message fails the test, it does not hang it. */
const SETTLE_MS = 180_000;

/** Strings an attacker tries; none may reach a query, a header or a log unescaped. */
const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE preview_logs; --",
  '1) UNION SELECT password FROM pg_shadow --',
  '{"$ne": null}',
  '{"$where": "sleep(1000)"}',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  '*',
  '>',
  '\u202e\uffff',
  '😀😀😀',
];
/** Subject tokens (project, location, policy) naming nothing that exists. */
const UNKNOWN_TOKENS = [
  'other',
  'acme2',
  'GLOBAL',
  '__proto__',
  'constructor',
  'toString',
  "'OR'1'='1'--",
  '$ne',
  '{{7*7}}',
  '%00',
  'web\u00e9',
];
const BAD_ADDRESSES = [
  '999.1.1.1',
  '256.0.0.1',
  '10.0.0',
  '1.2.3.4.5',
  '::g',
  ':::1',
  'localhost',
  "1' OR '1'='1",
  'x'.repeat(46),
  '10.0.0.1\r\nX-Injected: 1',
  '10.0.0.1\n',
];
const BAD_JSON = [
  '{',
  '[1,2',
  '{"a":}',
  '{"id":"x",}',
  "{'id':'x'}",
  'NaN',
  'undefined',
  '{"a":1}{"b":2}',
  '\u0000',
  '',
  ' ',
  '{"id":"x"',
  'nul',
  '[}',
];
/** Bytes that are not UTF-8: stray continuation, overlong, lone surrogate, truncated sequence. */
const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xe2, 0x82]];

const T0 = Date.UTC(2025, 5, 1);

interface Sent {
  stream: typeof TRAFFIC_STREAM | typeof INSPECTION_STREAM;
  subject: string;
  data: Uint8Array;
  msgID: string;
  /** What the generator made: a malformed category, or `valid`. */
  category: string;
  /** A valid event's id (its result or record is looked up by it). */
  eventId?: string;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const withBadUtf8 = (before: string, after: string, rng: Rng) =>
  Buffer.concat([Buffer.from(before), Buffer.from(rng.pick(BAD_UTF8)), Buffer.from(after)]);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const huge = (rng: Rng) => 'x'.repeat(rng.pick([300, 5_000, 100_000, 400_000]));
const randomBytes = (rng: Rng) => Uint8Array.from({ length: rng.int(300) }, () => rng.int(256));

/** Fuzz events for one system: `traffic(subject tokens)` and `inspection(phase)` subjects in its namespace. */
class Generator {
  private n = 0;

  constructor(
    private readonly rng: Rng,
    private readonly ns: NatsNamespace,
    private readonly policy: { project: string; location: string; policy: string },
  ) {}

  private trafficSubject(
    project = this.policy.project,
    location = this.policy.location,
    policy = this.policy.policy,
  ) {
    return this.ns.subject(trafficSubject(project, location, policy));
  }

  validTraffic(): TrafficEvent {
    const i = this.n++;
    const event: TrafficEvent = {
      // Hostile but legal ids: the evaluator must store and count them like any other.
      id: `fuzz-${SEED}-${i}${this.rng.next() < 0.3 ? `-${this.rng.pick(INJECTIONS)}` : ''}`,
      time: new Date(T0 + i * 1000).toISOString(),
      direction: 'INGRESS',
      srcIp:
        this.rng.next() < 0.2
          ? `2001:db8::${(i % 65535).toString(16)}`
          : `10.0.${this.rng.int(4)}.${this.rng.int(256)}`,
      destIp: '192.0.2.10',
      protocol: this.rng.pick(['tcp', 'udp', 6, 17]),
      destPort: this.rng.int(65536),
    };
    if (this.rng.next() < 0.3) event.srcPort = this.rng.int(65536);
    if (this.rng.next() < 0.3) event.targetTags = ['web', this.rng.pick(['db', 'edge'])];
    return event;
  }

  /** An event's JSON, sometimes with unknown fields (ignored, as the contracts say), hostile names included. */
  private withUnknownFields(event: object): string {
    const json = JSON.stringify(event);
    if (this.rng.next() >= 0.3) return json;
    return `${json.slice(0, -1)},"__proto__":{"polluted":true},${JSON.stringify(this.rng.pick(['constructor', 'extra', '$where']))}:${JSON.stringify(this.rng.pick(INJECTIONS))}}`;
  }

  validInspection(): Record<string, unknown> {
    const i = this.n++;
    const event: Record<string, unknown> = {
      id: `fuzz-${SEED}-${i}${this.rng.next() < 0.3 ? `-${this.rng.pick(INJECTIONS)}` : ''}`,
      node: { uuid: `node-${i}`, driver_info: {} },
      inventory: {
        system_vendor: { manufacturer: this.rng.pick(['Dell Inc.', 'HPE', ...INJECTIONS]) },
      },
      plugin_data: { note: this.rng.pick(INJECTIONS) },
    };
    if (this.rng.next() < 0.3) event.ports = [{ uuid: `port-${i}`, address: '52:54:00:12:34:56' }];
    return event;
  }

  /** One valid event, traffic or inspection. */
  valid(): Sent {
    if (this.rng.next() < 0.5) {
      const event = this.validTraffic();
      return {
        stream: TRAFFIC_STREAM,
        subject: this.trafficSubject(),
        data: bytes(this.withUnknownFields(event)),
        msgID: this.msgID(),
        category: 'valid',
        eventId: event.id,
      };
    }
    const event = this.validInspection();
    return {
      stream: INSPECTION_STREAM,
      subject: this.inspectionSubject(),
      data: bytes(this.withUnknownFields(event)),
      msgID: this.msgID(),
      category: 'valid',
      eventId: event.id as string,
    };
  }

  /** A valid traffic event for the experiment's policy. */
  validTrafficMessage(): Sent {
    const event = this.validTraffic();
    return {
      stream: TRAFFIC_STREAM,
      subject: this.trafficSubject(),
      data: bytes(JSON.stringify(event)),
      msgID: this.msgID(),
      category: 'valid',
      eventId: event.id,
    };
  }

  /** One malformed event, traffic or inspection. */
  malformed(): Sent {
    return this.rng.next() < 0.5 ? this.malformedTraffic() : this.malformedInspection();
  }

  private msgID() {
    return `fuzz-${SEED}-msg-${this.n++}`;
  }

  private inspectionSubject() {
    return this.ns.subject(inspectionEventSubject(this.rng.pick(INSPECTION_PHASES)));
  }

  private malformedTraffic(): Sent {
    const rng = this.rng;
    const sent = (
      category: string,
      data: Uint8Array | string,
      subject = this.trafficSubject(),
    ): Sent => ({
      stream: TRAFFIC_STREAM,
      subject,
      data: typeof data === 'string' ? bytes(data) : data,
      msgID: this.msgID(),
      category: `traffic/${category}`,
    });
    const event = this.validTraffic();
    const json = () => JSON.stringify(event);
    switch (rng.int(12)) {
      case 0:
        return sent('random-bytes', randomBytes(rng));
      case 1:
        return sent('bad-json', rng.pick(BAD_JSON));
      case 2: {
        // Bad UTF-8 where JSON needs structure, or inside a value.
        // In a value it is not read as U+FFFD: two different ids would become one.
        const rest = JSON.stringify({ ...event, id: undefined }).slice(1);
        return rng.next() < 0.5
          ? sent('bad-utf8-structure', withBadUtf8('{', json().slice(1), rng))
          : sent('bad-utf8-in-id', withBadUtf8(`{"id":"bad-utf8-${this.n}-`, `",${rest}`, rng));
      }
      case 3:
        return sent(
          'deep-nesting',
          rng.next() < 0.5
            ? deepArray(1_000 + rng.int(100_000))
            : `{"id":${deepObject(1_000 + rng.int(50_000))},"time":"${event.time}"}`,
        );
      case 4: {
        const field = rng.pick(['id', 'time', 'srcIp', 'destIp', 'direction'] as const);
        return sent('huge-string', JSON.stringify({ ...event, [field]: huge(rng) }));
      }
      case 5: {
        const [field, values] = rng.pick([
          ['id', [123, null, '', true, [], {}]],
          [
            'time',
            ['yesterday', '2025-13-45T99:99:99Z', 1700000000, null, `${event.time}' OR 1=1`],
          ],
          ['direction', ['ingress', 'BOTH', 1, null, "INGRESS' --"]],
          ['protocol', ['http', 'TCP', 256, -1, 1.5, null, ['tcp']]],
          ['srcPort', [-1, 65536, '22', 1.5, null]],
          ['destPort', [-1, 65536, '443', 2.5, {}]],
          [
            'targetTags',
            ['web', [1], [''], Array.from({ length: 65 }, () => 'a'), ['x'.repeat(64)]],
          ],
          ['srcIp', [42, null, [], {}]],
        ] as const);
        return sent(
          `wrong-type-${field}`,
          JSON.stringify({
            ...event,
            [field]: rng.pick(values as readonly unknown[]),
            unknownField: rng.pick(INJECTIONS),
          }),
        );
      }
      case 6: {
        const copy: Record<string, unknown> = { ...event };
        delete copy[rng.pick(['id', 'time', 'direction', 'srcIp', 'destIp', 'protocol'])];
        return sent('missing-field', JSON.stringify(copy));
      }
      case 7:
        return sent(
          'bad-address',
          JSON.stringify({ ...event, [rng.pick(['srcIp', 'destIp'])]: rng.pick(BAD_ADDRESSES) }),
        );
      case 8: {
        // A well-formed event for a policy that does not exist (or a subject of the wrong shape).
        const token = () => rng.pick(UNKNOWN_TOKENS);
        const subject = rng.pick([
          () => this.trafficSubject(token(), this.policy.location, this.policy.policy),
          () => this.trafficSubject(this.policy.project, token(), this.policy.policy),
          () => this.trafficSubject(this.policy.project, this.policy.location, token()),
          () => this.ns.subject(`traffic.v1.${this.policy.project}.${this.policy.location}`),
          () =>
            this.ns.subject(
              `traffic.v1.${this.policy.project}.${this.policy.location}.${this.policy.policy}.extra`,
            ),
        ])();
        return sent('unknown-subject', json(), subject);
      }
      case 9:
        // A NUL cannot be stored (Postgres text): the event must be dead-lettered, not retried forever.
        return sent(
          'nul-in-id',
          JSON.stringify({ ...event, id: `${event.id}${rng.pick(['\u0000', '\u0000\u0000x'])}` }),
        );
      case 10:
        return sent(
          'not-an-object',
          rng.pick(['null', '[]', '"event"', '42', 'true', JSON.stringify([event])]),
        );
      default:
        return sent(
          'injection-in-fields',
          JSON.stringify({
            ...event,
            [rng.pick(['direction', 'protocol', 'srcIp', 'time'])]: rng.pick(INJECTIONS),
          }),
        );
    }
  }

  private malformedInspection(): Sent {
    const rng = this.rng;
    const sent = (category: string, data: Uint8Array | string): Sent => ({
      stream: INSPECTION_STREAM,
      subject: this.inspectionSubject(),
      data: typeof data === 'string' ? bytes(data) : data,
      msgID: this.msgID(),
      category: `inspection/${category}`,
    });
    const event = this.validInspection();
    switch (rng.int(10)) {
      case 0:
        return sent('random-bytes', randomBytes(rng));
      case 1:
        return sent('bad-json', rng.pick(BAD_JSON));
      case 2:
        return rng.next() < 0.5
          ? sent('bad-utf8-structure', withBadUtf8('{', `"id":"${event.id as string}"}`, rng))
          : sent('bad-utf8-in-id', withBadUtf8(`{"id":"bad-utf8-${this.n}-`, '"}', rng));
      case 3:
        return sent(
          'deep-nesting',
          rng.pick([
            () => deepArray(1_000 + rng.int(100_000)),
            () => `{"id":"deep-${this.n}","ports":${deepArray(1_000 + rng.int(50_000))}}`,
            () => `{"id":"deep-${this.n}","node":${deepArray(1_000 + rng.int(50_000))}}`,
          ])(),
        );
      case 4:
        return sent(
          'huge-string',
          JSON.stringify({ ...event, [rng.pick(['id', 'scope'])]: huge(rng) }),
        );
      case 5: {
        const [field, values] = rng.pick([
          ['id', [123, null, '', true, [], {}]],
          ['node', ['node-1', [], 1, true]],
          ['ports', ['nope', [1], ['x'], [[]], {}, [null]]],
          ['port_groups', ['nope', [1], {}]],
          ['inventory', [[], 'x', 1, null, true]],
          ['plugin_data', [[], 'x', 1, null]],
          ['scope', [1, {}, true, []]],
        ] as const);
        return sent(
          `wrong-type-${field}`,
          JSON.stringify({ ...event, [field]: rng.pick(values as readonly unknown[]) }),
        );
      }
      case 6: {
        const copy = { ...event };
        delete copy.id;
        return sent('missing-id', JSON.stringify(copy));
      }
      case 7:
        return sent(
          'control-chars-in-id',
          JSON.stringify({
            ...event,
            id: `${event.id as string}${rng.pick(['\u0000', '\r\n', '\u001b[31m'])}`,
          }),
        );
      case 8:
        return sent(
          'not-an-object',
          rng.pick(['null', '[]', '"event"', '42', 'true', JSON.stringify([event])]),
        );
      default:
        return sent(
          'too-many-ports',
          JSON.stringify({ ...event, ports: Array.from({ length: 10_001 }, () => ({})) }),
        );
    }
  }
}

describe('hostile events on every stream', () => {
  let system: RunningSystem;
  let database: string;
  let namespace: string;
  let ns: NatsNamespace;
  let nc: NatsConnection;
  let ports: Record<ServiceName, number>;
  const P = '/v1/projects/acme/locations/global/firewallPolicies';
  const experiment = `${P}/web/experiments/block`;

  const api = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: JsonBody }> => {
    const response = await fetch(`${system.urls.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${system.devToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  /** Events the evaluator has counted for the experiment (one configuration: the live policy never changes). */
  const evaluated = async () => {
    const report = await api('GET', `${experiment}/previewReport`);
    return (report.body.configurations as { evaluated: number }[]).reduce(
      (sum, c) => sum + c.evaluated,
      0,
    );
  };

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    ({ database, namespace } = isolated);
    ns = new NatsNamespace(namespace);
    ports = isolated.settings.ports;
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: { NATS_NAMESPACE: namespace, LOG_LEVEL: 'silent' },
      log: () => undefined,
    });
    nc = await connect({ servers: TEST_NATS_URL });
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  /** Publishes as producers do, a few hundred at a time; returns each message's stream sequence. */
  async function publishAll(messages: Sent[]): Promise<PubAck[]> {
    const js = nc.jetstream();
    const acks: PubAck[] = [];
    for (let i = 0; i < messages.length; i += 250) {
      acks.push(
        ...(await Promise.all(
          messages.slice(i, i + 250).map((m) => js.publish(m.subject, m.data, { msgID: m.msgID })),
        )),
      );
    }
    return acks;
  }

  /** Whether the durable consumer has settled (acked or terminated) everything up to `seq`. */
  async function settled(stream: string, durable: string, seq: number): Promise<boolean> {
    const info = await (await nc.jetstreamManager()).consumers.info(ns.stream(stream), durable);
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 && info.num_pending === 0;
  }

  async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return false;
  }

  /** Every message of a stream, read with an ordered consumer. */
  async function readStream(stream: string): Promise<JsMsg[]> {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(ns.stream(stream)).catch(() => undefined);
    const total = info?.state.messages ?? 0;
    const out: JsMsg[] = [];
    if (total === 0) return out;
    const consumer = await nc.jetstream().consumers.get(ns.stream(stream));
    const messages = await consumer.consume({ max_messages: 1_000 });
    for await (const message of messages) {
      out.push(message);
      if (out.length >= total) break;
    }
    return out;
  }

  it(`dead-letters ${MALFORMED} malformed events exactly once each with a reason, processes the valid ones between them, and no consumer crashes (seed ${SEED})`, async () => {
    // A live policy with an ACTIVE experiment: valid traffic events are counted in its preview report.
    const allow = {
      priority: 100,
      direction: 'INGRESS',
      action: 'allow',
      match: { srcIpRanges: ['10.0.0.0/8', '2001:db8::/32'] },
    };
    expect((await api('POST', `${P}?firewallPolicyId=web`, { rules: [allow] })).status).toBe(200);
    const deny = {
      priority: 10,
      direction: 'INGRESS',
      action: 'deny',
      match: { srcIpRanges: ['10.0.1.0/24'] },
    };
    expect(
      (
        await api('POST', `${P}/web/experiments?experimentId=block`, {
          firewallPolicy: { rules: [deny, allow] },
        })
      ).status,
    ).toBe(200);
    expect((await api('POST', `${experiment}:startPreview`)).status).toBe(200);

    const rng = prng(SEED);
    const generator = new Generator(rng, ns, {
      project: 'acme',
      location: 'global',
      policy: 'web',
    });
    // The evaluator learns of the experiment from its events: one valid event at a time until one
    // is counted. Warm-up events sent before it knew the policy are dead-lettered (no live policy).
    const warmUp = new Set<string>();
    let warmUpSeq = 0;
    const counted = await waitUntil(async () => {
      if ((await evaluated()) > 0) return true;
      const [ack] = await publishAll([generator.validTrafficMessage()]);
      warmUp.add(`${TRAFFIC_STREAM}:${ack.seq}`);
      warmUpSeq = ack.seq;
      return false;
    }, 60_000);
    expect(counted).toBe(true);
    expect(await waitUntil(() => settled(TRAFFIC_STREAM, 'evaluator', warmUpSeq), 30_000)).toBe(
      true,
    );
    const baseline = await evaluated();

    const pidsBefore = processesOf(namespace).sort();
    expect(pidsBefore.length).toBeGreaterThanOrEqual(SERVICES.length);

    // 10,000 malformed events, valid ones interleaved at random.
    const messages: Sent[] = [];
    let malformed = 0;
    while (malformed < MALFORMED) {
      if (rng.next() < VALID_SHARE) messages.push(generator.valid());
      else {
        messages.push(generator.malformed());
        malformed++;
      }
    }
    const acks = await publishAll(messages);
    expect(acks.filter((ack) => ack.duplicate)).toEqual([]);
    const lastSeq = (stream: string) =>
      Math.max(0, ...acks.filter((ack) => ack.stream === ns.stream(stream)).map((ack) => ack.seq));

    // Both consumers settle everything (a message they can neither process nor dead-letter never does).
    const trafficSettled = await waitUntil(
      () => settled(TRAFFIC_STREAM, 'evaluator', lastSeq(TRAFFIC_STREAM)),
      SETTLE_MS,
    );
    const inspectionSettled = await waitUntil(
      () => settled(INSPECTION_STREAM, 'inspection-rules-service', lastSeq(INSPECTION_STREAM)),
      SETTLE_MS,
    );

    // Every dead letter, by the stream and sequence of the message it stands for.
    const streamOf = (subject: string) =>
      subject.startsWith(ns.subject('traffic.v1.'))
        ? TRAFFIC_STREAM
        : subject.startsWith(ns.subject('inspection.v1.'))
          ? INSPECTION_STREAM
          : `? ${subject}`;
    const letters = new Map<string, { reason: string; data: Uint8Array; copies: number }>();
    for (const letter of await readStream(DEAD_LETTER_STREAM.name)) {
      const key = `${streamOf(letter.headers?.get('Dead-Letter-Subject') ?? '')}:${letter.headers?.get('Dead-Letter-Stream-Sequence')}`;
      const seen = letters.get(key);
      letters.set(key, {
        reason: letter.headers?.get(DEAD_LETTER_REASON_HEADER) ?? '',
        data: letter.data,
        copies: (seen?.copies ?? 0) + 1,
      });
    }

    const byCategory = (sent: Sent[]) =>
      Object.fromEntries(
        [...new Set(sent.map((m) => m.category))]
          .sort()
          .map((c) => [c, sent.filter((m) => m.category === c).length]),
      );
    const keyOf = (index: number) => `${messages[index].stream}:${acks[index].seq}`;
    const notDeadLettered: Sent[] = [];
    const withoutReason: Sent[] = [];
    const otherContent: Sent[] = [];
    const validDeadLettered: string[] = [];
    messages.forEach((message, index) => {
      const letter = letters.get(keyOf(index));
      if (message.category === 'valid') {
        if (letter)
          validDeadLettered.push(`${message.stream} ${message.eventId}: ${letter.reason}`);
        return;
      }
      if (!letter) notDeadLettered.push(message);
      else if (!letter.reason.trim()) withoutReason.push(message);
      else if (Buffer.compare(Buffer.from(letter.data), Buffer.from(message.data)) !== 0)
        otherContent.push(message);
    });
    const malformedKeys = new Set(
      messages.map((m, index) => (m.category === 'valid' ? '' : keyOf(index))),
    );
    const strayLetters = [...letters.keys()].filter(
      (key) => !malformedKeys.has(key) && !warmUp.has(key),
    );

    // Valid inspection events: one result each.
    const results = new Map<string, number>();
    for (const message of await readStream(INSPECTION_RESULTS_STREAM)) {
      const result = message.json<InspectionResult>();
      results.set(result.eventId, (results.get(result.eventId) ?? 0) + 1);
    }
    const validInspection = messages.filter(
      (m) => m.category === 'valid' && m.stream === INSPECTION_STREAM,
    );
    const validTraffic = messages.filter(
      (m) => m.category === 'valid' && m.stream === TRAFFIC_STREAM,
    );
    const inspectionUnanswered = validInspection
      .filter((m) => results.get(m.eventId!) !== 1)
      .map((m) => m.eventId);

    const sample = (sent: Sent[]) => ({
      count: sent.length,
      byCategory: byCategory(sent),
      first: sent
        .slice(0, 3)
        .map(
          (m) =>
            `${m.category} ${m.subject}: ${Buffer.from(m.data).toString('utf8').slice(0, 120)}`,
        ),
    });
    expect({
      seed: SEED,
      trafficSettled,
      inspectionSettled,
      notDeadLettered: sample(notDeadLettered),
      withoutReason: sample(withoutReason),
      otherContent: sample(otherContent),
      deadLetteredTwice: [...letters.values()].filter((l) => l.copies > 1).length,
      validDeadLettered: validDeadLettered.slice(0, 5),
      strayLetters: strayLetters.slice(0, 5),
      inspectionUnanswered: inspectionUnanswered.slice(0, 5),
      trafficCounted: (await evaluated()) - baseline,
    }).toEqual({
      seed: SEED,
      trafficSettled: true,
      inspectionSettled: true,
      notDeadLettered: sample([]),
      withoutReason: sample([]),
      otherContent: sample([]),
      deadLetteredTwice: 0,
      validDeadLettered: [],
      strayLetters: [],
      inspectionUnanswered: [],
      // Every valid traffic event counted once in the preview report.
      trafficCounted: validTraffic.length,
    });
    // Exactly one dead letter per malformed event.
    expect([...letters.keys()].filter((key) => malformedKeys.has(key)).length).toBe(MALFORMED);
    expect(validTraffic.length + validInspection.length).toBeGreaterThan(
      MALFORMED * VALID_SHARE * 0.8,
    );

    // Nothing crashed: the same processes, all ready.
    expect(processesOf(namespace).sort()).toEqual(pidsBefore);
    for (const service of SERVICES) {
      const ready = await fetch(`http://127.0.0.1:${ports[service.name]}/readyz`);
      expect({ seed: SEED, service: service.name, status: ready.status }).toEqual({
        seed: SEED,
        service: service.name,
        status: 200,
      });
    }
  }, 600_000);
});
