import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import { startServiceApp } from '@rollout/service-kit';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually, uniqueName } from '@rollout/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { DataSource } from 'typeorm';
import { sha256 } from '../auth/api-keys';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

const ADMIN_TOKEN = 'inspection-admin-token';
const EDITOR_TOKEN = 'inspection-editor-token';
const API_KEYS = JSON.stringify([
  { name: 'admin', sha256: sha256(ADMIN_TOKEN).toString('hex'), roles: ['admin'], projects: '*' },
  { name: 'editor', sha256: sha256(EDITOR_TOKEN).toString('hex'), roles: ['editor'], projects: '*' },
]);
const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * The gateway runs in-process; the inspection-rules-service runs from its own main.ts in a
 * child process (apps never import each other), on the same NATS namespace. Its log lines
 * (stdout) are kept, to check what they say.
 */
async function startSystem(builtInYaml: string, env: Record<string, string>) {
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const dir = mkdtempSync(join(tmpdir(), 'inspection-rules-'));
  writeFileSync(join(dir, 'built-in.yaml'), builtInYaml);
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
  const service: ChildProcess = spawn(
    process.execPath,
    ['-r', 'reflect-metadata', '-r', '@swc-node/register', join(ROOT, 'apps/inspection-rules-service/src/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...common,
        DATABASE_URL: TEST_POSTGRES_URL,
        DATABASE_SCHEMA: schema,
        INSPECTION_BUILT_IN_RULES: join(dir, 'built-in.yaml'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let logs = '';
  service.stdout?.on('data', (chunk: Buffer) => {
    logs += chunk.toString('utf8');
  });
  const config = loadConfig(configSchema, { ...common, AUTH_API_KEYS: API_KEYS, RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '10000' });
  const gateway: INestApplication = await startServiceApp(gatewayApp(config));
  const base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  await eventually(
    async () => {
      const response = await fetch(`${base}/v1/services/inspection-rules-service`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return response.status === 200 ? true : undefined;
    },
    { timeoutMs: 25_000, intervalMs: 200, what: 'inspection-rules-service serving' },
  );
  return {
    base,
    schema,
    logs: () => logs,
    async close() {
      await gateway.close();
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
      const admin = new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL });
      await admin.initialize();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.destroy();
      const nc = await connect({ servers: TEST_NATS_URL });
      const jsm = await nc.jetstreamManager();
      for await (const stream of jsm.streams.names()) {
        if (stream.startsWith(`${namespace}_`)) await jsm.streams.delete(stream);
      }
      await nc.close();
    },
  };
}

const BUILT_IN_UUID = '11111111-1111-4111-8111-111111111111';
const BUILT_INS = `
- uuid: ${BUILT_IN_UUID}
  description: built-in tagger
  priority: 10000
  actions:
    - op: set-plugin-data
      args: ["/tagged", true]
`;

const DISCOVERY_RULE = {
  description: 'Initialize freshly discovered nodes',
  sensitive: true,
  conditions: [
    { op: 'is-true', args: ['{node.auto_discovered}'] },
    { op: '!is-empty', args: ['{plugin_data[bmc_address]}'] },
  ],
  actions: [
    { op: 'set-attribute', args: ['/driver', 'ipmi'] },
    { op: 'set-attribute', args: ['/driver_info/ipmi_address', '{plugin_data[bmc_address]}'] },
    { op: 'set-attribute', args: ['/driver_info/ipmi_username', 'admin'] },
    { op: 'set-attribute', args: ['/driver_info/ipmi_password', 'pa$$w0rd'] },
  ],
};

interface Rule {
  uuid: string;
  priority: number;
  sensitive: boolean;
  built_in: boolean;
  conditions?: unknown;
  actions?: unknown;
  description: string | null;
  scope: string | null;
  phase: string;
}

describe('inspection rules API through the gateway', () => {
  let apps: Awaited<ReturnType<typeof startSystem>>;

  beforeAll(async () => {
    apps = await startSystem(BUILT_INS, { INSPECTION_DEFAULT_SCOPE: 'lab', LOG_LEVEL: 'debug' });
  }, 60_000);

  afterAll(async () => {
    await apps?.close();
  }, 30_000);

  async function call(method: string, path: string, body?: unknown, contentType = 'application/json', token: string | null = ADMIN_TOKEN) {
    const response = await fetch(`${apps.base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the fields it expects
    const parsed: any = text ? JSON.parse(text) : undefined;
    // Ironic's error body: the fault is a JSON document inside `error_message`.
    const fault = typeof parsed?.error_message === 'string' ? (JSON.parse(parsed.error_message) as { faultcode: string; faultstring: string }) : undefined;
    return { status: response.status, body: parsed, fault, headers: response.headers };
  }

  const create = (rule: object) => call('POST', '/v1/inspection_rules', rule);

  it.each([
    ['GET', '/v1/inspection_rules', undefined],
    ['GET', `/v1/inspection_rules/${BUILT_IN_UUID}`, undefined],
    ['POST', '/v1/inspection_rules', { actions: [{ op: 'log', args: ['x'] }] }],
    ['POST', '/v1/inspection_rules:evaluate', {}],
    ['POST', '/v1/inspection_rules:import', []],
    ['PATCH', `/v1/inspection_rules/${BUILT_IN_UUID}`, []],
    ['DELETE', `/v1/inspection_rules/${BUILT_IN_UUID}`, undefined],
    ['DELETE', '/v1/inspection_rules', undefined],
  ])('is for admins only: %s %s answers 401 without a token and 403 to an editor', async (method, path, body) => {
    expect((await call(method, path, body, 'application/json', null)).status).toBe(401);
    const refused = await call(method, path, body, 'application/json', EDITOR_TOKEN);
    expect(refused.status).toBe(403);
    expect(refused.fault).toMatchObject({ faultcode: 'Client', faultstring: 'This needs the admin role.' });
  });

  it('creates a rule with defaults, returns it, and lists it with or without detail', async () => {
    const created = await create({ actions: [{ op: 'log', args: ['hello'] }], priority: 5 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      priority: 5,
      phase: 'main',
      sensitive: false,
      built_in: false,
      scope: 'lab',
      description: null,
      conditions: [],
      actions: [{ op: 'log', args: ['hello'] }],
      updated_at: null,
    });
    const uuid = (created.body as Rule).uuid;
    expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body).toEqual(created.body);
    const summary = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(summary.map((r) => r.uuid)).toEqual(expect.arrayContaining([BUILT_IN_UUID, uuid]));
    expect(summary.every((r) => !('conditions' in r) && !('actions' in r))).toBe(true);
    const detailed = (await call('GET', '/v1/inspection_rules?detail=true')).body.inspection_rules as Rule[];
    expect(detailed.find((r) => r.uuid === uuid)?.actions).toEqual([{ op: 'log', args: ['hello'] }]);
    expect(detailed.find((r) => r.uuid === BUILT_IN_UUID)).toMatchObject({ built_in: true, priority: 10000 });
  });

  it('filters the list by scope and phase', async () => {
    const early = await create({ phase: 'early', scope: 'rack-9', actions: [{ op: 'log', args: ['early'] }] });
    await create({ phase: 'preprocess', scope: 'rack-9', actions: [{ op: 'log', args: ['pre'] }] });
    const byPhase = (await call('GET', '/v1/inspection_rules?phase=early')).body.inspection_rules as Rule[];
    expect(byPhase.map((r) => r.uuid)).toEqual([early.body.uuid]);
    const byScope = (await call('GET', '/v1/inspection_rules?scope=rack-9')).body.inspection_rules as Rule[];
    expect(byScope.map((r) => r.phase)).toEqual(['early', 'preprocess']);
    const both = (await call('GET', '/v1/inspection_rules?scope=rack-9&phase=early&detail=true')).body.inspection_rules as Rule[];
    expect(both).toEqual([expect.objectContaining({ uuid: early.body.uuid, actions: [{ op: 'log', args: ['early'] }] })]);
  });

  it.each([
    ['no actions', {}, /actions/],
    ['an unknown action', { actions: [{ op: 'reboot' }] }, /unknown action "reboot"/],
    ['a priority out of range', { priority: 10000, actions: [{ op: 'log', args: ['x'] }] }, /priority: must be between 0 and 9999/],
    ['built_in', { built_in: true, actions: [{ op: 'log', args: ['x'] }] }, /built_in/],
    ['a node action in early', { phase: 'early', actions: [{ op: 'set-attribute', args: ['/driver', 'x'] }] }, /cannot run in the early phase/],
    ['a catastrophic regex', { conditions: [{ op: 'matches', args: ['{node.name}', '(a+)+$'] }], actions: [{ op: 'log', args: ['x'] }] }, /catastrophic/],
    ['the seed typo', { conditions: [{ op: '!is-empty', args: ['{plugin_data[bmc_address}'] }], actions: [{ op: 'log', args: ['x'] }] }, /bad index in \{plugin_data\[bmc_address\}/],
    ['a body that is not a rule', [{ actions: [] }], /./],
    ['conditions that are not a list', { conditions: 'always', actions: [{ op: 'log', args: ['x'] }] }, /conditions/],
  ])('refuses %s with 400 naming the problem', async (_, rule, message) => {
    const response = await create(rule);
    expect(response.status).toBe(400);
    expect(response.fault?.faultcode).toBe('Client');
    expect(response.fault?.faultstring).toMatch(message);
  });

  it('creates a rule with its own uuid, and refuses a taken uuid with 409', async () => {
    const uuid = 'aaaaaaaa-0000-4000-8000-000000000001';
    expect((await create({ uuid, actions: [{ op: 'log', args: ['x'] }] })).status).toBe(201);
    expect((await create({ uuid, actions: [{ op: 'log', args: ['x'] }] })).status).toBe(409);
    expect((await create({ uuid: BUILT_IN_UUID, actions: [{ op: 'log', args: ['x'] }] })).status).toBe(409);
  });

  it('answers 404 for a rule that does not exist, on every route', async () => {
    const missing = '99999999-9999-4999-8999-999999999999';
    expect((await call('GET', `/v1/inspection_rules/${missing}`)).status).toBe(404);
    expect((await call('PATCH', `/v1/inspection_rules/${missing}`, [{ op: 'replace', path: '/priority', value: 1 }])).status).toBe(404);
    expect((await call('DELETE', `/v1/inspection_rules/${missing}`)).status).toBe(404);
  });

  it('answers 400 for invalid list queries', async () => {
    expect((await call('GET', '/v1/inspection_rules?phase=late')).status).toBe(400);
    expect((await call('GET', '/v1/inspection_rules?detail=maybe')).status).toBe(400);
    // Found by the hostile-input e2e test: a NUL in the scope used to reach Postgres (500).
    const nul = await call('GET', '/v1/inspection_rules?scope=lab%00');
    expect(nul.status).toBe(400);
    expect(nul.fault?.faultstring).toMatch(/scope/);
  });

  it('patches a rule with JSON Patch and refuses forbidden changes with 400', async () => {
    const { body: rule } = await create({ description: 'before', actions: [{ op: 'log', args: ['x'] }] });
    const patched = await call(
      'PATCH',
      `/v1/inspection_rules/${rule.uuid}`,
      [
        { op: 'replace', path: '/description', value: 'after' },
        { op: 'replace', path: '/priority', value: 42 },
        { op: 'add', path: '/conditions/-', value: { op: 'eq', args: [1, 1] } },
      ],
      'application/json-patch+json',
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'after', priority: 42, conditions: [{ op: 'eq', args: [1, 1] }] });
    expect(patched.body.updated_at).not.toBeNull();
    for (const patch of [
      [{ op: 'replace', path: '/built_in', value: true }],
      [{ op: 'replace', path: '/priority', value: 10000 }],
      [{ op: 'replace', path: '/priority', value: -1 }],
      [{ op: 'remove', path: '/nonexistent' }],
      { op: 'replace' },
    ]) {
      const response = await call('PATCH', `/v1/inspection_rules/${rule.uuid}`, patch);
      expect(response.status).toBe(400);
    }
    expect((await call('GET', `/v1/inspection_rules/${rule.uuid}`)).body.priority).toBe(42);
  });

  it('protects built-in rules: no PATCH, no DELETE (400), and DELETE all keeps them', async () => {
    const patch = await call('PATCH', `/v1/inspection_rules/${BUILT_IN_UUID}`, [{ op: 'replace', path: '/priority', value: 1 }]);
    expect(patch.status).toBe(400);
    expect(patch.fault?.faultstring).toMatch(/built in/);
    expect((await call('DELETE', `/v1/inspection_rules/${BUILT_IN_UUID}`)).status).toBe(400);
    const { body: rule } = await create({ actions: [{ op: 'log', args: ['x'] }] });
    expect((await call('DELETE', `/v1/inspection_rules/${rule.uuid}`)).status).toBe(204);
    expect((await call('GET', `/v1/inspection_rules/${rule.uuid}`)).status).toBe(404);
    expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
    const left = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(left.map((r) => r.uuid)).toEqual([BUILT_IN_UUID]);
  });

  describe('sensitive rules', () => {
    let uuid: string;

    beforeAll(async () => {
      await call('DELETE', '/v1/inspection_rules');
      const created = await create(DISCOVERY_RULE);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ sensitive: true, conditions: null, actions: null });
      uuid = created.body.uuid;
    });

    it('never return conditions or actions: get, list with detail, patch', async () => {
      expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body).toMatchObject({ conditions: null, actions: null });
      const list = (await call('GET', '/v1/inspection_rules?detail=true')).body.inspection_rules as Rule[];
      expect(list.find((r) => r.uuid === uuid)).toMatchObject({ conditions: null, actions: null });
      const patched = await call('PATCH', `/v1/inspection_rules/${uuid}`, [{ op: 'replace', path: '/priority', value: 3 }]);
      expect(patched.body).toMatchObject({ priority: 3, conditions: null, actions: null });
      expect(JSON.stringify(list)).not.toContain('pa$$w0rd');
    });

    it('cannot be made non-sensitive (400), and a patch can neither read nor echo their content', async () => {
      const response = await call('PATCH', `/v1/inspection_rules/${uuid}`, [{ op: 'replace', path: '/sensitive', value: false }]);
      expect(response.status).toBe(400);
      expect(response.fault?.faultstring).toMatch(/sensitive: a sensitive rule cannot be made non-sensitive/);
      for (const patch of [
        // `test` answers yes or no about a value: an oracle.
        [{ op: 'test', path: '/actions/3/args/1', value: 'pa$$w0rd' }],
        [{ op: 'copy', from: '/actions/3/args/1', path: '/description' }],
        [{ op: 'move', from: '/actions/3/args/1', path: '/actions/0/op' }],
        [{ op: 'remove', path: '/actions/9' }],
      ]) {
        const probe = await call('PATCH', `/v1/inspection_rules/${uuid}`, patch);
        expect(probe.status).toBe(400);
        expect(JSON.stringify(probe.body)).not.toMatch(/pa\$\$w0rd|ipmi_password|auto_discovered/);
      }
      expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body.description).toBe('Initialize freshly discovered nodes');
    });

    it(':evaluate runs the seed example and hides the sensitive values', async () => {
      const response = await call('POST', '/v1/inspection_rules:evaluate', {
        phase: 'main',
        scope: 'lab',
        node: { uuid: 'node-1', auto_discovered: true, driver_info: {} },
        plugin_data: { bmc_address: '192.0.2.10' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        matched_rules: [
          { uuid: BUILT_IN_UUID, description: 'built-in tagger' },
          { uuid, description: 'Initialize freshly discovered nodes' },
        ],
        node_patch: [
          { op: 'add', path: '/driver', value: '***' },
          { op: 'add', path: '/driver_info/ipmi_address', value: '***' },
          { op: 'add', path: '/driver_info/ipmi_username', value: '***' },
          { op: 'add', path: '/driver_info/ipmi_password', value: '***' },
        ],
        port_patches: {},
        plugin_data: { bmc_address: '192.0.2.10', tagged: true },
        failure: null,
      });
    });

    it('their run errors are short and hold no values', async () => {
      await create({
        sensitive: true,
        priority: 1,
        actions: [{ op: 'set-attribute', args: ['/driver_info/ipmi_password', '{plugin_data[vault][secret_pw]}'] }],
      });
      const response = await call('POST', '/v1/inspection_rules:evaluate', { scope: 'lab', node: { auto_discovered: false } });
      expect(response.body.failure).toMatch(/^Rule [0-9a-f-]{36} failed at actions\[\d+\] \([a-z-]+\)\.$/);
      const failing = await create({ sensitive: true, priority: 2, actions: [{ op: 'fail', args: ['BMC password calvin is wrong'] }] });
      const failed = await call('POST', '/v1/inspection_rules:evaluate', { scope: 'lab', node: {} });
      expect(failed.body.failure).toBe(`Inspection failed by rule ${failing.body.uuid}.`);
    });

    it('never put their values in the logs', async () => {
      await call('DELETE', '/v1/inspection_rules');
      await create(DISCOVERY_RULE);
      await create({ sensitive: true, actions: [{ op: 'log', args: ['the password is pa$$w0rd', 'warning'] }] });
      await create({ description: 'loud', actions: [{ op: 'log', args: ['plain message from a rule that is not sensitive'] }] });
      // Runs last (same priority, created last), and fails.
      await create({ sensitive: true, actions: [{ op: 'set-attribute', args: ['/x', '{plugin_data[calvin_secret_path]}'] }] });
      const response = await call('POST', '/v1/inspection_rules:evaluate', {
        scope: 'lab',
        node: { uuid: 'node-1', auto_discovered: true, driver_info: {} },
        plugin_data: { bmc_address: '192.0.2.10' },
      });
      expect(response.body.failure).toMatch(/^Rule [0-9a-f-]{36} failed at actions\[\d+\] \([a-z-]+\)\.$/);
      await call('POST', '/v1/inspection_rules:evaluate', { scope: 'lab', node: {} });
      // The rules did log (so the logs are being read), with the sensitive rule's message hidden.
      await eventually(async () => (apps.logs().includes('plain message from a rule that is not sensitive') ? true : undefined), {
        what: 'the rule log line',
      });
      expect(apps.logs()).toContain('logged a message (hidden: the rule is sensitive)');
      expect(apps.logs()).not.toMatch(/pa\$\$w0rd|calvin_secret_path/);
    });
  });

  it(':evaluate refuses bad input with 400', async () => {
    expect((await call('POST', '/v1/inspection_rules:evaluate', { phase: 'late' })).status).toBe(400);
    expect((await call('POST', '/v1/inspection_rules:evaluate', { node: 'x' })).status).toBe(400);
  });

  it(':import takes YAML, all or nothing', async () => {
    await call('DELETE', '/v1/inspection_rules');
    const good = `
- description: one
  actions: [{op: log, args: [one]}]
- description: two
  phase: preprocess
  actions: [{op: set-plugin-data, args: [/two, 2]}]
`;
    const bad = `${good}- description: three\n  actions: [{op: explode}]\n`;
    const refused = await call('POST', '/v1/inspection_rules:import', bad, 'application/yaml');
    expect(refused.status).toBe(400);
    expect(refused.fault?.faultstring).toMatch(/Rule 2: .*unknown action "explode"/);
    expect(((await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length).toBe(1);
    const imported = await call('POST', '/v1/inspection_rules:import', `${good}- description: three\n  sensitive: true\n  actions: [{op: log, args: [secret-three]}]\n`, 'application/yaml');
    expect(imported.status).toBe(201);
    expect((imported.body.inspection_rules as Rule[]).map((r) => r.description)).toEqual(['one', 'two', 'three']);
    expect((imported.body.inspection_rules as Rule[])[2]).toMatchObject({ sensitive: true, conditions: null, actions: null });
    expect((await call('POST', '/v1/inspection_rules:import', '- description: none\n  actions: ~\n', 'application/yaml')).status).toBe(400);
    const json = await call('POST', '/v1/inspection_rules:import', [{ actions: [{ op: 'log', args: ['j'] }] }]);
    expect(json.status).toBe(201);
    expect((await call('POST', '/v1/inspection_rules:import', 'a: [unclosed', 'application/yaml')).status).toBe(400);
    expect((await call('POST', '/v1/inspection_rules:import', 'a: b', 'application/yaml')).status).toBe(400);
    // A uuid taken already (or twice in the import) refuses the whole import with 409.
    const taken = (imported.body.inspection_rules as Rule[])[0].uuid;
    const clash = await call('POST', '/v1/inspection_rules:import', [
      { description: 'new', actions: [{ op: 'log', args: ['n'] }] },
      { uuid: taken, actions: [{ op: 'log', args: ['t'] }] },
    ]);
    expect(clash.status).toBe(409);
    expect(clash.fault?.faultstring).toMatch(/already exists/);
    const twice = 'bbbbbbbb-0000-4000-8000-000000000001';
    const repeated = await call('POST', '/v1/inspection_rules:import', [
      { uuid: twice, actions: [{ op: 'log', args: ['1'] }] },
      { uuid: twice, actions: [{ op: 'log', args: ['2'] }] },
    ]);
    expect(repeated.status).toBe(409);
    const left = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(left.map((r) => r.description)).not.toContain('new');
    expect(left.map((r) => r.uuid)).not.toContain(twice);
  });

  it('records who changed which rule, under which request id, and logs both', async () => {
    const send = async (method: string, path: string, requestId: string, body?: unknown, contentType = 'application/json') => {
      const response = await fetch(`${apps.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': requestId, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    const created = await send('POST', '/v1/inspection_rules', 'req-audit-create', { actions: [{ op: 'log', args: ['audited'] }] });
    expect(created.status).toBe(201);
    const uuid = (created.body as Rule).uuid;
    expect((await send('PATCH', `/v1/inspection_rules/${uuid}`, 'req-audit-patch', [{ op: 'replace', path: '/priority', value: 7 }])).status).toBe(200);
    // A refused change records nothing.
    expect((await send('PATCH', `/v1/inspection_rules/${uuid}`, 'req-audit-refused', [{ op: 'replace', path: '/priority', value: 'high' }])).status).toBe(400);
    expect((await send('DELETE', `/v1/inspection_rules/${uuid}`, 'req-audit-delete')).status).toBe(204);
    const imported = await send('POST', '/v1/inspection_rules:import', 'req-audit-import', '- description: imported\n  actions: [{op: log, args: [i]}]\n', 'application/yaml');
    expect(imported.status).toBe(201);
    const importedUuid = (imported.body.inspection_rules as Rule[])[0].uuid;
    expect((await send('DELETE', '/v1/inspection_rules', 'req-audit-delete-all')).status).toBe(204);
    // An HTTP client cannot claim to be someone else.
    expect((await send('POST', '/v1/inspection_rules', 'req-audit-forged', { actor: 'root', actions: [{ op: 'log', args: ['x'] }] })).status).toBe(400);

    const db = new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL });
    await db.initialize();
    try {
      const changes = async (rule: string) =>
        (await db.query(`SELECT change, actor, request_id FROM "${apps.schema}".rule_changes WHERE rule_uuid = $1 ORDER BY seq`, [rule])) as unknown[];
      expect(await changes(uuid)).toEqual([
        { change: 'created', actor: 'admin', request_id: 'req-audit-create' },
        { change: 'updated', actor: 'admin', request_id: 'req-audit-patch' },
        { change: 'deleted', actor: 'admin', request_id: 'req-audit-delete' },
      ]);
      expect(await changes(importedUuid)).toEqual([
        { change: 'imported', actor: 'admin', request_id: 'req-audit-import' },
        { change: 'deleted', actor: 'admin', request_id: 'req-audit-delete-all' },
      ]);
    } finally {
      await db.destroy();
    }

    // Each change is logged with its actor and the request id.
    const lines = () =>
      apps
        .logs()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { reqId?: string; actor?: string; change?: string; rules?: string[] });
    for (const [requestId, change, rule] of [
      ['req-audit-create', 'created', uuid],
      ['req-audit-patch', 'updated', uuid],
      ['req-audit-delete', 'deleted', uuid],
      ['req-audit-import', 'imported', importedUuid],
      ['req-audit-delete-all', 'deleted', importedUuid],
    ]) {
      await eventually(async () => (lines().some((line) => line.reqId === requestId) ? true : undefined), { what: `the log line of ${requestId}` });
      expect(lines().find((line) => line.reqId === requestId && line.change === change)).toMatchObject({ actor: 'admin', change, rules: expect.arrayContaining([rule]) });
    }
  });

  /** Requests shaped as python-ironicclient and openstacksdk send them. */
  describe("Ironic's API shape", () => {
    const IRONIC = { 'x-openstack-ironic-api-version': '1.96', accept: 'application/json', 'user-agent': 'python-ironicclient' };

    async function ironic(method: string, path: string, body?: unknown, headers: Record<string, string> = IRONIC) {
      const response = await fetch(`${apps.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : undefined;
      const fault = typeof parsed?.error_message === 'string' ? JSON.parse(parsed.error_message) : undefined;
      return { status: response.status, body: parsed, fault, headers: response.headers };
    }

    const rule = (description: string, priority: number) => ({ description, priority, actions: [{ op: 'log', args: [description] }] });

    beforeAll(async () => {
      expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
    });

    it('creates with 201, a Location naming the rule, links, and the version headers', async () => {
      const created = await ironic('POST', '/v1/inspection_rules', rule('located', 3));
      expect(created.status).toBe(201);
      const { uuid } = created.body as Rule;
      expect(created.headers.get('location')).toBe(`${apps.base}/v1/inspection_rules/${uuid}`);
      expect(created.body.links).toEqual([
        { href: `${apps.base}/v1/inspection_rules/${uuid}`, rel: 'self' },
        { href: `${apps.base}/inspection_rules/${uuid}`, rel: 'bookmark' },
      ]);
      expect(created.headers.get('x-openstack-ironic-api-version')).toBe('1.96');
      expect(created.headers.get('x-openstack-ironic-api-minimum-version')).toBe('1.1');
      expect(created.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
      expect(created.headers.get('x-openstack-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
      expect(created.headers.get('openstack-request-id')).toBe(created.headers.get('x-openstack-request-id'));
      // The Location answers GET with the same rule.
      const fetched = await ironic('GET', new URL(created.headers.get('location') as string).pathname);
      expect(fetched.body).toEqual(created.body);
    });

    it('takes the token as OpenStack clients send it, in X-Auth-Token', async () => {
      const response = await fetch(`${apps.base}/v1/inspection_rules`, { headers: { ...IRONIC, 'x-auth-token': ADMIN_TOKEN } });
      expect(response.status).toBe(200);
      const refused = await fetch(`${apps.base}/v1/inspection_rules`, { headers: { ...IRONIC, 'x-auth-token': EDITOR_TOKEN } });
      expect(refused.status).toBe(403);
      expect((await fetch(`${apps.base}/v1/inspection_rules`, { headers: { ...IRONIC, 'x-auth-token': 'wrong' } })).status).toBe(401);
      // Elsewhere the gateway still wants a bearer token.
      expect((await fetch(`${apps.base}/v1/services`, { headers: { 'x-auth-token': ADMIN_TOKEN } })).status).toBe(401);
    });

    it('negotiates versions as Ironic: latest, OpenStack-API-Version, 406 outside the range, 404/405 before 1.96', async () => {
      const latest = await ironic('GET', '/v1/inspection_rules', undefined, { 'x-openstack-ironic-api-version': 'latest' });
      expect(latest.status).toBe(200);
      expect(latest.headers.get('x-openstack-ironic-api-version')).toBe('1.115');
      const sdk = await ironic('GET', '/v1/inspection_rules', undefined, { 'openstack-api-version': 'baremetal 1.100', 'user-agent': 'openstacksdk' });
      expect(sdk.status).toBe(200);
      expect(sdk.headers.get('x-openstack-ironic-api-version')).toBe('1.100');
      for (const [version, message] of [
        ['1.200', 'Version 1.200 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].'],
        ['2.0', 'Mutually exclusive versions requested. Version 2.0 requested but not supported by this service. The supported version range is: [1.1, 1.115].'],
        ['one', 'Invalid value for X-OpenStack-Ironic-API-Version header'],
      ]) {
        const refused = await ironic('GET', '/v1/inspection_rules', undefined, { 'x-openstack-ironic-api-version': version });
        expect(refused.status).toBe(406);
        expect(refused.fault).toEqual({ faultcode: 'Client', faultstring: message, debuginfo: null });
        // The range is on the refusal, so a client can pick a version it may use.
        expect(refused.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
      }
      const old = { 'x-openstack-ironic-api-version': '1.95' };
      const uuid = '99999999-9999-4999-8999-999999999999';
      for (const [method, path, body, status] of [
        ['GET', '/v1/inspection_rules', undefined, 404],
        ['GET', `/v1/inspection_rules/${uuid}`, undefined, 404],
        ['POST', '/v1/inspection_rules', rule('old', 1), 405],
        ['PATCH', `/v1/inspection_rules/${uuid}`, [{ op: 'replace', path: '/priority', value: 1 }], 405],
        ['DELETE', `/v1/inspection_rules/${uuid}`, undefined, 405],
      ] as const) {
        const refused = await ironic(method, path, body, old);
        expect(refused.status).toBe(status);
        expect(refused.fault?.faultstring).toBe('The API version does not allow inspection rules');
      }
    });

    it('answers errors as Ironic: only error_message, a JSON fault in a string', async () => {
      const missing = await ironic('GET', '/v1/inspection_rules/99999999-9999-4999-8999-999999999999');
      expect(missing.status).toBe(404);
      expect(Object.keys(missing.body)).toEqual(['error_message']);
      expect(missing.body.error_message).toBe(
        '{"faultcode": "Client", "faultstring": "Rule 99999999-9999-4999-8999-999999999999 could not be found.", "debuginfo": null}',
      );
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('answers 400 for a malformed uuid on every route that takes one', async () => {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const refused = await ironic(method, '/v1/inspection_rules/not-a-uuid', method === 'PATCH' ? [] : undefined);
        expect(refused.status).toBe(400);
        expect(refused.fault?.faultstring).toBe("Schema error: 'not-a-uuid' is not a 'uuid'");
      }
    });

    it('refuses phase: null, and echoes multiple as Ironic normalises it', async () => {
      const refused = await ironic('POST', '/v1/inspection_rules', { phase: null, actions: [{ op: 'log', args: ['x'] }] });
      expect(refused.status).toBe(400);
      expect(refused.fault?.faultstring).toMatch(/phase/);
      const created = await ironic('POST', '/v1/inspection_rules', {
        conditions: [
          { op: 'eq', args: ['{item}', 1], loop: [1, 2] },
          { op: 'eq', args: [1, 1], multiple: 'all' },
          { op: 'eq', args: ['{item}', 2], loop: [1, 2], multiple: 'last' },
        ],
        actions: [{ op: 'log', args: ['{item}'], loop: ['a'], multiple: 'all' }, { op: 'log', args: ['x'], loop: [] }],
      });
      expect(created.status).toBe(201);
      expect(created.body.conditions).toEqual([
        { op: 'eq', args: ['{item}', 1], loop: [1, 2], multiple: 'any' },
        { op: 'eq', args: [1, 1] },
        { op: 'eq', args: ['{item}', 2], loop: [1, 2], multiple: 'last' },
      ]);
      expect(created.body.actions).toEqual([{ op: 'log', args: ['{item}'], loop: ['a'] }, { op: 'log', args: ['x'] }]);
      await ironic('DELETE', `/v1/inspection_rules/${created.body.uuid}`);
    });

    it('returns the fields asked for (and links) on get, and refuses unknown ones', async () => {
      const { body: created } = await ironic('POST', '/v1/inspection_rules', rule('fields', 4));
      const some = await ironic('GET', `/v1/inspection_rules/${created.uuid}?fields=uuid,priority`);
      expect(some.body).toEqual({ uuid: created.uuid, priority: 4, links: created.links });
      const bogus = await ironic('GET', `/v1/inspection_rules/${created.uuid}?fields=uuid,bogus`);
      expect(bogus.status).toBe(400);
      expect(bogus.fault?.faultstring).toBe('Field(s) "bogus" are not valid');
      await ironic('DELETE', `/v1/inspection_rules/${created.uuid}`);
    });

    it('lists Ironic default fields with links; detail gives everything; fields picks', async () => {
      const list = (await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Record<string, unknown>[];
      expect(list.length).toBeGreaterThan(0);
      for (const item of list) expect(Object.keys(item).sort()).toEqual(['description', 'links', 'phase', 'priority', 'uuid']);
      const detailed = (await ironic('GET', '/v1/inspection_rules?detail=True')).body.inspection_rules as Record<string, unknown>[];
      expect(Object.keys(detailed[0])).toEqual(expect.arrayContaining(['uuid', 'created_at', 'updated_at', 'sensitive', 'conditions', 'actions', 'links']));
      const picked = (await ironic('GET', '/v1/inspection_rules?fields=uuid')).body.inspection_rules as Record<string, unknown>[];
      expect(Object.keys(picked[0]).sort()).toEqual(['links', 'uuid']);
      const both = await ironic('GET', '/v1/inspection_rules?detail=True&fields=uuid');
      expect(both.status).toBe(400);
      expect(both.fault?.faultstring).toBe('Can not specify ?detail=True and fields in the same request.');
    });

    it('imports report every rule refused, with its reason, and import none', async () => {
      const before = ((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length;
      const refused = await call('POST', '/v1/inspection_rules:import', [
        { description: 'bad op', actions: [{ op: 'explode' }] },
        { description: 'fine', actions: [{ op: 'log', args: ['x'] }] },
        { description: 'hook', actions: [{ op: 'api-call', args: { url: 'http://hook.example/' } }] },
        { description: 'null phase', phase: null, actions: [{ op: 'log', args: ['x'] }] },
      ]);
      expect(refused.status).toBe(400);
      expect(refused.fault?.faultstring).toMatch(/^3 of 4 rules refused, none imported\. Rule 0: .*unknown action "explode".* Rule 2: .*api-call is not supported.* Rule 3: .*phase/);
      expect(((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length).toBe(before);
    });

    it("runs Ironic's trait and capability actions and dotted plugin data paths, in the node patch", async () => {
      const created = await ironic('POST', '/v1/inspection_rules', {
        description: 'traits',
        conditions: [{ op: 'eq', args: { values: ['{inventory[cpu][architecture]}', 'x86_64'] } }],
        actions: [
          { op: 'add-trait', args: { name: 'CUSTOM_X86' } },
          { op: 'set-capability', args: { name: 'boot_mode', value: 'uefi' } },
          { op: 'set-plugin-data', args: { path: 'cpu.arch', value: '{inventory[cpu][architecture]}' } },
        ],
      });
      expect(created.status).toBe(201);
      const evaluated = await call('POST', '/v1/inspection_rules:evaluate', {
        node: { uuid: 'n1', traits: [] },
        inventory: { cpu: { architecture: 'x86_64' } },
        // Rules created without a scope get the default scope (lab) here.
        scope: 'lab',
      });
      expect(evaluated.status).toBe(200);
      expect(evaluated.body.failure).toBeNull();
      expect(evaluated.body.node_patch).toEqual([
        { op: 'add', path: '/traits', value: ['CUSTOM_X86'] },
        { op: 'add', path: '/properties', value: {} },
        { op: 'add', path: '/properties/capabilities', value: 'boot_mode:uefi' },
      ]);
      expect(evaluated.body.plugin_data).toMatchObject({ cpu: { arch: 'x86_64' } });
      await ironic('DELETE', `/v1/inspection_rules/${created.body.uuid}`);
    });

    it('pages with limit, marker and next, and sorts with sort_key and sort_dir', async () => {
      expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
      const uuids: string[] = [BUILT_IN_UUID];
      for (const [name, priority] of [['low', 1], ['high', 9], ['middle', 5]] as const) {
        uuids.push((await ironic('POST', '/v1/inspection_rules', rule(name, priority))).body.uuid);
      }
      const first = await ironic('GET', '/v1/inspection_rules?limit=2');
      expect((first.body.inspection_rules as Rule[]).map((r) => r.uuid)).toEqual(uuids.slice(0, 2));
      expect(first.body.next).toBe(
        `${apps.base}/v1/inspection_rules?sort_key=id&sort_dir=asc&fields=uuid,priority,phase,description&limit=2&marker=${uuids[1]}`,
      );
      // python-ironicclient follows `next` as it is.
      const second = await ironic('GET', new URL(first.body.next).pathname + new URL(first.body.next).search);
      expect((second.body.inspection_rules as Rule[]).map((r) => r.uuid)).toEqual(uuids.slice(2));
      const third = await ironic('GET', new URL(second.body.next).pathname + new URL(second.body.next).search);
      expect(third.body).toEqual({ inspection_rules: [] });
      // A page that is not full has no next.
      expect((await ironic('GET', '/v1/inspection_rules?limit=5')).body.next).toBeUndefined();

      const byPriority = await ironic('GET', '/v1/inspection_rules?sort_key=priority&sort_dir=desc');
      expect((byPriority.body.inspection_rules as Rule[]).map((r) => r.priority)).toEqual([10000, 9, 5, 1]);
      const afterMarker = await ironic('GET', `/v1/inspection_rules?sort_key=priority&sort_dir=desc&marker=${uuids[2]}&limit=1`);
      expect((afterMarker.body.inspection_rules as Rule[]).map((r) => r.priority)).toEqual([5]);
      expect(afterMarker.body.next).toContain('sort_key=priority&sort_dir=desc');

      for (const [query, status, message] of [
        ['limit=0', 400, 'Limit must be positive'],
        ['limit=two', 400, "Schema error: 'two' is not of type 'integer'"],
        ['sort_key=actions', 400, 'The sort_key value actions is an invalid field for sorting'],
        ['sort_key=bogus', 400, 'The sort_key value bogus is an invalid field for sorting'],
        ['sort_dir=up', 400, "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"],
        ['marker=99999999-9999-4999-8999-999999999999', 404, 'Rule 99999999-9999-4999-8999-999999999999 could not be found.'],
      ] as const) {
        const refused = await ironic('GET', `/v1/inspection_rules?${query}`);
        expect([query, refused.status]).toEqual([query, status]);
        expect(refused.fault?.faultstring).toBe(message);
      }
    });
  });
});
