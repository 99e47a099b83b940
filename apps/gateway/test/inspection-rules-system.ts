import { provisionFromEnv } from '@rollout/provision';
import {
  REPO_ROOT,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  removeTestResources,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../src/auth/api-keys';
import { startGateway } from './gateway';

export const ADMIN_TOKEN = 'inspection-admin-token';
export const EDITOR_TOKEN = 'inspection-editor-token';
const API_KEYS = JSON.stringify([
  { name: 'admin', sha256: sha256(ADMIN_TOKEN).toString('hex'), roles: ['admin'], projects: '*' },
  {
    name: 'editor',
    sha256: sha256(EDITOR_TOKEN).toString('hex'),
    roles: ['editor'],
    projects: '*',
  },
]);

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
  const common = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  // The provisioning step first, as in a cluster: the service only checks that its streams exist.
  await provisionFromEnv({ ...common, BUS_PROVISION_SERVICES: 'inspection-rules-service' });
  const service: ChildProcess = spawn(
    process.execPath,
    [
      '-r',
      'reflect-metadata',
      '-r',
      '@swc-node/register',
      join(REPO_ROOT, 'apps/inspection-rules-service/src/main.ts'),
    ],
    {
      cwd: REPO_ROOT,
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
  const { app: gateway, url: base } = await startGateway({
    NATS_NAMESPACE: namespace,
    AUTH_API_KEYS: API_KEYS,
  });
  await eventually(
    async () => {
      const response = await fetch(`${base}/v1/services/inspection-rules-service`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
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
      await removeTestResources({ schema, namespace });
    },
  };
}

export const BUILT_IN_UUID = '11111111-1111-4111-8111-111111111111';
const BUILT_INS = `
- uuid: ${BUILT_IN_UUID}
  description: built-in tagger
  priority: 10000
  actions:
    - op: set-plugin-data
      args: ["/tagged", true]
`;

export const DISCOVERY_RULE = {
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

export interface Rule {
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

/** One call to the gateway as an HTTP client makes it; Ironic's error body is read as its fault. */
async function callApi(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  token: string | null = ADMIN_TOKEN,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...headers,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': contentType } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: JsonBody = text ? JSON.parse(text) : undefined;
  // Ironic's error body: the fault is a JSON document inside `error_message`.
  const fault =
    typeof parsed?.error_message === 'string'
      ? (JSON.parse(parsed.error_message) as { faultcode: string; faultstring: string })
      : undefined;
  return { status: response.status, body: parsed, fault, headers: response.headers };
}

/** The headers python-ironicclient sends. */
export const IRONIC_HEADERS = {
  'x-openstack-ironic-api-version': '1.96',
  accept: 'application/json',
  'user-agent': 'python-ironicclient',
};

/** One call as an Ironic client makes it (admin token, its headers); the fault read as `callApi` does. */
async function callIronic(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = IRONIC_HEADERS,
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...headers,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  const fault =
    typeof parsed?.error_message === 'string' ? JSON.parse(parsed.error_message) : undefined;
  return { status: response.status, body: parsed, fault, headers: response.headers };
}

/** A valid rule that only logs its description. */
export const logRule = (description: string, priority: number) => ({
  description,
  priority,
  actions: [{ op: 'log', args: [description] }],
});

/** What a spec file's inspection rules run in: filled in by the hooks `inspectionRulesSystem` registers. */
export interface InspectionRulesSystem {
  /** The gateway's URL. */
  base: string;
  /** The service's Postgres schema. */
  schema: string;
  /** What the service has logged so far. */
  logs(): string;
  /** A call as an HTTP client makes it, with the admin token unless `token` says otherwise. */
  call: (
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
    token?: string | null,
    headers?: Record<string, string>,
  ) => ReturnType<typeof callApi>;
  /** Creates `rule` (201) or answers why not. */
  create: (rule: object) => ReturnType<typeof callApi>;
  /** A call as python-ironicclient makes it: `headers` instead of IRONIC_HEADERS. */
  ironic: (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => ReturnType<typeof callIronic>;
}

/**
 * The one system of a spec file (or of the `describe` it is called in): the gateway and the
 * inspection-rules-service with BUILT_INS and `env`, started before its tests and removed after
 * them.
 */
export function inspectionRulesSystem(
  env: Record<string, string> = { INSPECTION_DEFAULT_SCOPE: 'lab', LOG_LEVEL: 'debug' },
): InspectionRulesSystem {
  let running: Awaited<ReturnType<typeof startSystem>> | undefined;
  const system: InspectionRulesSystem = {
    base: '',
    schema: '',
    logs: () => running?.logs() ?? '',
    call: (method, path, body, contentType, token, headers) =>
      callApi(system.base, method, path, body, contentType, token, headers),
    create: (rule) => system.call('POST', '/v1/inspection_rules', rule),
    ironic: (method, path, body, headers) => callIronic(system.base, method, path, body, headers),
  };
  beforeAll(async () => {
    running = await startSystem(BUILT_INS, env);
    system.base = running.base;
    system.schema = running.schema;
  }, 60_000);
  afterAll(() => running?.close(), 30_000);
  return system;
}
