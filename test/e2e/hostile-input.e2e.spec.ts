import { RunningSystem, SERVICES, ServiceName, launch } from '@rollout/launcher';
import { Rng, prng } from '@rollout/testing/kit';
import { Agent, request as httpRequest } from 'node:http';
import { DIST, removeRun, isolatedSettings } from './support';

/**
 * Hostile input across every route the gateway documents (its OpenAPI document is generated
 * from the code, so a new route is fuzzed the day it is added): 10,000 malformed requests —
 * random and deeply nested bodies, huge strings, bad UTF-8, injection strings in ids, filters
 * and page tokens, forged page tokens, wrong content types. Nothing may answer 5xx, every
 * service must still be ready afterwards, and no log line may hold a secret.
 * The generator is seeded: a fixed seed in CI, so a run is reproducible; FUZZ_SEED=<n> explores
 * others (a failure names its seed).
 */
const REQUESTS = 10_000;
const CONCURRENCY = 16;
const SEED = Number(process.env.FUZZ_SEED ?? 42);

const HOSTILE_STRINGS = [
  "' OR '1'='1",
  "'; DROP TABLE events; --",
  '" OR ""="',
  '1) UNION SELECT password FROM pg_shadow --',
  '{"$ne": null}',
  '{"$where": "sleep(1000)"}',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'projects/other/locations/x',
  '*',
  '>',
  'a.b.c',
  '',
  ' ',
  '\u0000',
  '\u202e\u0000\uffff',
  '😀'.repeat(50),
  'a'.repeat(5_000),
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '0x10',
  'ZmFrZS1wYWdlLXRva2Vu', // base64 of "fake-page-token": a forged page token
  'eyJvZmZzZXQiOi0xfQ', // base64url {"offset":-1}
  'previewMetadata.state = ACTIVE OR 1=1',
  'name = "x" AND state = (SELECT 1)',
];
/** Percent-encoded bytes that are not UTF-8 (lone surrogate, overlong, stray continuation). */
const BAD_UTF8_IN_URLS = ['%ED%A0%80', '%C0%AF', '%FF%FE', '%80', '%E0%80'];
const QUERY_KEYS = [
  'pageSize',
  'pageToken',
  'filter',
  'updateMask',
  'etag',
  'requestId',
  'firewallPolicyId',
  'experimentId',
  'leaseId',
  'detail',
  'scope',
  'phase',
  'changedOnly',
  'unknownField',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
];

interface Route {
  method: string;
  path: string;
}

function randomJson(rng: Rng, depth: number): unknown {
  const kind = depth > 4 ? rng.int(4) : rng.int(7);
  switch (kind) {
    case 0:
      return rng.pick(HOSTILE_STRINGS);
    case 1:
      return rng.pick([0, -1, 1.5, 65536, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return rng.pick([true, false, null]);
    case 3:
      return rng.pick([
        'tcp',
        'INGRESS',
        'deny',
        'allow',
        'EGRESS',
        '10.0.0.0/8',
        '::/0',
        'ACTIVE',
      ]);
    case 4:
      return Array.from({ length: rng.int(5) }, () => randomJson(rng, depth + 1));
    default: {
      const keys = [
        'rules',
        'priority',
        'direction',
        'action',
        'match',
        'srcIpRanges',
        'layer4Configs',
        'ipProtocol',
        'ports',
        'etag',
        'name',
        'annotations',
        'firewallPolicy',
        'displayName',
        '__proto__',
        'constructor',
        'conditions',
        'actions',
        'op',
        'args',
        'reservations',
        'startDate',
        'endDate',
        'lease',
        'context',
        rng.pick(HOSTILE_STRINGS),
      ];
      return Object.fromEntries(
        Array.from({ length: 1 + rng.int(5) }, () => [rng.pick(keys), randomJson(rng, depth + 1)]),
      );
    }
  }
}

function deeplyNested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** One malformed request for a route: hostile path ids, junk query, and a bad body. */
function malformedRequest(
  rng: Rng,
  route: Route,
): { method: string; path: string; headers: Record<string, string>; body?: Buffer } {
  const segment = () => {
    if (rng.next() < 0.15) return rng.pick(BAD_UTF8_IN_URLS);
    if (rng.next() < 0.4) return rng.pick(['acme', 'global', 'edge', 'exp', 'p1']); // plausible, so deeper code runs
    return encodeURIComponent(rng.pick(HOSTILE_STRINGS)) || '%20';
  };
  let path = route.path.replace(/\{[^}]+\}/g, segment);
  const query: string[] = [];
  for (let i = rng.int(4); i > 0; i--) {
    const value =
      rng.next() < 0.15
        ? rng.pick(BAD_UTF8_IN_URLS)
        : encodeURIComponent(rng.pick(HOSTILE_STRINGS));
    query.push(`${rng.pick(QUERY_KEYS)}=${value}`);
  }
  if (query.length) path += `?${query.join('&')}`;

  const headers: Record<string, string> = {};
  let body: Buffer | undefined;
  const shape = rng.int(10);
  if (shape === 0) body = Buffer.from(deeplyNested(100 + rng.int(2_000)));
  else if (shape === 1)
    body = Buffer.from(JSON.stringify({ rules: 'x'.repeat(1_100_000) })); // over the body limit
  else if (shape === 2)
    body = Buffer.from([
      0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d,
    ]); // {"a":"<bad UTF-8>"}
  else if (shape === 3)
    body = Buffer.from(
      rng.pick([
        '{',
        '[1,2',
        '{"a":}',
        'null',
        '"string"',
        '[]',
        '123',
        '{"a":1}{"b":2}',
        '\u0000',
      ]),
    );
  else if (shape < 9) body = Buffer.from(JSON.stringify(randomJson(rng, 0)));
  if (body) {
    headers['content-type'] = rng.pick(CONTENT_TYPES);
    headers['content-length'] = String(body.length);
  }
  return { method: route.method, path, headers, body };
}

describe('hostile input on every route', () => {
  let system: RunningSystem;
  let database: string;
  let ports: Record<ServiceName, number>;
  const output: string[] = [];

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    database = isolated.database;
    ports = isolated.settings.ports;
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      // Logs on, so that what they would leak is there to be found.
      extraEnv: {
        NATS_NAMESPACE: isolated.namespace,
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
      },
      log: () => undefined,
      serviceOutput: (_service, chunk) => output.push(chunk),
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  it(`answers ${REQUESTS} malformed requests without a 5xx, stays ready, and logs no secret (seed ${SEED})`, async () => {
    const document = (await (await fetch(`${system.urls.docs}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes: Route[] = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\\/g, '') })),
    );
    expect(routes.length).toBeGreaterThan(10);

    const rng = prng(SEED);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const url = new URL(system.urls.gateway);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    const send = (input: ReturnType<typeof malformedRequest>) =>
      new Promise<void>((resolve) => {
        const request = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: input.method,
            path: input.path,
            agent,
            headers: { authorization: `Bearer ${system.devToken}`, ...input.headers },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              if (status >= 500)
                failures.push(
                  `${status} ${input.method} ${input.path.slice(0, 200)}: ${Buffer.concat(chunks).toString().slice(0, 300)}`,
                );
              resolve();
            });
          },
        );
        // The server may close on a body it refuses before reading it: that is an answer too.
        request.on('error', () => resolve());
        request.end(input.body);
      });

    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < REQUESTS) {
          sent++;
          await send(malformedRequest(rng, rng.pick(routes)));
        }
      }),
    );
    agent.destroy();

    expect(failures.slice(0, 10)).toEqual([]);
    // Most requests must have been answered (a refused body may close the connection instead).
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(REQUESTS * 0.95);
    expect([...statuses.keys()].every((status) => status >= 200 && status < 500)).toBe(true);
    // The requests got past the edge into validation: bad fields, oversized and wrongly typed bodies.
    for (const refused of [400, 413, 415])
      expect({ status: refused, seen: (statuses.get(refused) ?? 0) > 0 }).toEqual({
        status: refused,
        seen: true,
      });

    for (const service of SERVICES) {
      const ready = await fetch(`http://127.0.0.1:${ports[service.name]}/readyz`);
      expect({ service: service.name, status: ready.status }).toEqual({
        service: service.name,
        status: 200,
      });
    }

    const logs = output.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(system.devToken);
    expect(logs).not.toMatch(/Bearer [\x21-\x7e]{8,}/);
  }, 300_000);
});
