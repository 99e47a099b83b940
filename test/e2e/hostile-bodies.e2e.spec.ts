import { RunningSystem, SERVICES, ServiceName, launch } from '@rollout/launcher';
import { DIST, isolatedSettings, removeRun } from './support';

/**
 * Every route the gateway documents (read from its generated OpenAPI document, so a route added
 * later is covered the day it appears) gets the bodies and parameters that used to slip through:
 * a NUL character in a path parameter, a query parameter, a body value or key; an unpaired UTF-16
 * surrogate in a body value or key (a JSON Patch's too) or, encoded, in a path; an empty body,
 * `null`, an array, a string, a number, wrongly typed fields, an oversized body, a type that is not
 * JSON. Nothing may answer 5xx, and nothing may be stored: the policies, experiments, leases and
 * inspection rules read the same afterwards, etags included.
 */
const POLICIES = '/v1/projects/acme/locations/global/firewallPolicies';
const SEED_IDS: Record<string, string> = {
  project: 'acme',
  location: 'global',
  policy: 'seed',
  experiment: 'exp',
  service: 'gateway',
};
const JSON_TYPE = 'application/json';

interface Operation {
  method: string;
  path: string;
  params: string[];
  requiredQuery: string[];
  takesBody: boolean;
}

interface Probe {
  what: string;
  method: string;
  path: string;
  contentType?: string;
  body?: string;
  /** Must be refused (4xx); otherwise only "not a 5xx". */
  refused: boolean;
}

const BODIES: { what: string; body: string; contentType?: string; refused: boolean }[] = [
  { what: 'an empty body', body: '', refused: true },
  { what: 'null', body: 'null', refused: true },
  { what: 'an array', body: '[]', refused: false },
  { what: 'a string', body: '"text"', refused: false },
  { what: 'a number', body: '42', refused: false },
  {
    what: 'a NUL in values',
    body: JSON.stringify({
      displayName: 'a\u0000b',
      description: '\u0000',
      rules: [{ priority: 1, description: 'x\u0000' }],
      firewallPolicy: { displayName: '\u0000' },
      etag: '\u0000',
      startDate: '\u0000',
      conditions: [{ op: '\u0000' }],
    }),
    refused: true,
  },
  { what: 'a NUL in a key', body: '{"a\\u0000b": 1}', refused: true },
  {
    // JSON.stringify writes each lone surrogate as its escape (`"\\ud800"`), as a client would.
    what: 'an unpaired UTF-16 surrogate in values',
    body: JSON.stringify({
      displayName: 'a\ud800b',
      description: '\udc00',
      rules: [{ priority: 1, description: 'x\ud83d' }],
      firewallPolicy: { displayName: '\ud800', rules: [{ priority: 1, description: '\ud800' }] },
      annotations: { owner: '\ud800' },
      etag: '\ud800',
      startDate: '\ude00',
      conditions: [{ op: '\ud800' }],
      actions: [{ op: 'log', args: ['\ud800'] }],
    }),
    refused: true,
  },
  { what: 'an unpaired UTF-16 surrogate in a key', body: '{"a\\ud800b": 1}', refused: true },
  {
    what: 'an unpaired UTF-16 surrogate in a JSON Patch value',
    body: JSON.stringify([{ op: 'replace', path: '/description', value: '\ud800' }]),
    refused: true,
  },
  {
    what: 'wrongly typed fields',
    body: JSON.stringify({ displayName: 7, rules: 'x', firewallPolicy: 3, reservations: {} }),
    refused: false,
  },
  {
    what: 'an oversized body',
    body: JSON.stringify({ description: 'x'.repeat(1_100_000) }),
    refused: true,
  },
  { what: 'a type that is not JSON', body: 'hello', contentType: 'text/plain', refused: true },
];

const isCustomMethod = (path: string) => /\}?:[A-Za-z]+$/.test(path);

/** A lone surrogate as a client can put it in a path: its UTF-8-style bytes, percent-encoded. */
const ENCODED_SURROGATE = '%ED%A0%80';

function fill(op: Operation, override: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(override[name] ?? SEED_IDS[name] ?? 'ghost')
      .replace(/%2500/g, '%00')
      .replace(/%25ED%25A0%2580/g, ENCODED_SURROGATE),
  );
}

function probesOf(op: Operation): Probe[] {
  const probes: Probe[] = [];
  const withRequired = (path: string) =>
    op.requiredQuery.length ? `${path}?${op.requiredQuery.map((q) => `${q}=hb`).join('&')}` : path;
  for (const param of op.params)
    probes.push(
      {
        what: `a NUL in the path parameter ${param}`,
        method: op.method,
        path: withRequired(fill(op, { [param]: 'a%00b' })),
        refused: true,
      },
      {
        what: `an encoded lone surrogate in the path parameter ${param}`,
        method: op.method,
        path: withRequired(fill(op, { [param]: `a${ENCODED_SURROGATE}b` })),
        refused: true,
      },
    );
  // A route that changes state gets its NUL query on a resource that does not exist, so that
  // even a route which ignores its query string stores nothing.
  if (op.method === 'GET' || op.params.length > 0) {
    const last = op.params.at(-1);
    const path = op.method === 'GET' || !last ? fill(op) : fill(op, { [last]: 'ghost' });
    probes.push({
      what: 'a NUL in a query parameter',
      method: op.method,
      path: `${path}?requestId=a%00b&filter=a%00b&pageToken=%00`,
      refused: true,
    });
  }
  if (!op.takesBody) return probes;
  for (const body of BODIES) {
    // A custom method without a body takes its defaults (a backtest would start): not hostile.
    if (body.body === '' && isCustomMethod(op.path)) continue;
    probes.push({
      what: body.what,
      method: op.method,
      path: withRequired(fill(op)),
      contentType: body.contentType ?? JSON_TYPE,
      body: body.body,
      refused: body.refused,
    });
  }
  return probes;
}

describe('hostile bodies and parameters on every documented route', () => {
  let system: RunningSystem;
  let database: string;
  let ports: Record<ServiceName, number>;

  const api = async (method: string, path: string, body?: string, contentType = JSON_TYPE) => {
    const response = await fetch(`${system.urls.gateway}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${system.devToken}`,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body,
    }).catch(() => undefined);
    return { status: response?.status ?? 0, text: (await response?.text()) ?? '' };
  };
  const store = async () =>
    Promise.all(
      [
        POLICIES,
        `${POLICIES}/seed`,
        `${POLICIES}/seed/experiments`,
        `${POLICIES}/seed/experiments/exp`,
        '/v1/projects/acme/leases',
        '/v1/inspection_rules',
      ].map(async (path) => ({ path, ...(await api('GET', path)) })),
    );

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    database = isolated.database;
    ports = isolated.settings.ports;
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: {
        NATS_NAMESPACE: isolated.namespace,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
      },
      log: () => undefined,
    });
    const rule = {
      priority: 10,
      direction: 'INGRESS',
      action: 'allow',
      match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp' }] },
    };
    const seeded = [
      await api('POST', `${POLICIES}?firewallPolicyId=seed`, JSON.stringify({ rules: [rule] })),
      await api(
        'POST',
        `${POLICIES}/seed/experiments?experimentId=exp`,
        JSON.stringify({ firewallPolicy: { rules: [] } }),
      ),
    ];
    expect(seeded.map((answer) => answer.status)).toEqual([200, 200]);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  it('answers no 5xx, refuses each with a 4xx, and stores nothing', async () => {
    const document = (await (await fetch(`${system.urls.docs}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>
      >;
    };
    const operations: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path: path.replace(/\\/g, ''),
          params: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]),
          requiredQuery: (operation.parameters ?? [])
            .filter((p) => p.in === 'query' && p.required)
            .map((p) => p.name),
          takesBody: 'requestBody' in operation,
        })),
    );
    expect(operations.length).toBeGreaterThan(30);
    const before = await store();
    expect(before.map(({ path, status }) => ({ path, status }))).toEqual(
      before.map(({ path }) => ({ path, status: 200 })),
    );

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const probes = operations.flatMap(probesOf);
    for (const probe of probes) {
      const answer = await api(probe.method, probe.path, probe.body, probe.contentType);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const wrong = probe.refused
        ? answer.status < 400 || answer.status >= 500
        : answer.status === 0 || answer.status >= 500;
      if (wrong)
        failures.push(
          `${answer.status} for ${probe.what}: ${probe.method} ${probe.path.slice(0, 160)} ${answer.text.slice(0, 200)}`,
        );
    }
    expect(failures).toEqual([]);
    expect(probes.length).toBeGreaterThan(150);
    for (const refused of [400, 413, 415])
      expect([refused, statuses.has(refused)]).toEqual([refused, true]);

    expect(await store()).toEqual(before);
    for (const service of SERVICES) {
      const ready = await fetch(`http://127.0.0.1:${ports[service.name]}/readyz`);
      expect({ service: service.name, status: ready.status }).toEqual({
        service: service.name,
        status: 200,
      });
    }
  }, 300_000);
});
