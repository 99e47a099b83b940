import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import { TRAFFIC_STREAM, trafficSubject } from '@rollout/contracts';
import {
  ACTOR_ASSERTION_HEADER,
  ActorAssertionSigner,
  ActorClaims,
  BusUser,
  generateBusKeyPair,
  inboxPrefixOf,
  natsAuthorizationConfig,
  parseBusKey,
} from '@rollout/nats';
import { startServiceApp } from '@rollout/service-kit';
import {
  NatsServer,
  ServiceProcess,
  eventually,
  removeTestResources,
  startNatsServer,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing';
import { JSONCodec, NatsConnection, NatsError, connect, headers as natsHeaders } from 'nats';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../src/config';
import { gatewayApp } from '../src/gateway-app';

// The system the bus security tests run on (bus-security.int.spec.ts): a NATS server with the
// deployed users and permissions, every service as its own NATS user, and the gateway.

export const codec = JSONCodec<unknown>();
export const KEYS = generateBusKeyPair('test-1');
/** The evaluator's system key, which signs its auto-stops. */
export const EVALUATOR_KEYS = generateBusKeyPair('system.evaluator.test');
const password = () => randomBytes(12).toString('hex');
const USERS: BusUser[] = [
  { user: 'gateway', password: password(), role: { kind: 'gateway' } },
  { user: 'experiment-service', password: password(), role: { kind: 'experiment-service' } },
  { user: 'evaluator', password: password(), role: { kind: 'evaluator' } },
  { user: 'enforcement-service', password: password(), role: { kind: 'enforcement-service' } },
  {
    user: 'inspection-rules-service',
    password: password(),
    role: { kind: 'inspection-rules-service' },
  },
  {
    user: 'budget-adapter',
    password: password(),
    role: { kind: 'policy-adapter', adapter: 'budget' },
  },
  {
    user: 'producer-acme',
    password: password(),
    role: { kind: 'traffic-producer', projects: ['acme'] },
  },
  { user: 'agent', password: password(), role: { kind: 'inspection-agent' } },
  { user: 'admin', password: password(), role: { kind: 'admin' } },
];
export const credentials = (user: string) => ({
  user,
  pass: USERS.find((u) => u.user === user)!.password,
  inboxPrefix: inboxPrefixOf(user),
});

export const ADMIN_TOKEN = 'bus-admin-token';
export const ACME_TOKEN = 'bus-acme-token';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const API_KEYS = [
  { name: 'operator', sha256: sha256(ADMIN_TOKEN), roles: ['admin'], projects: '*' },
  { name: 'acme-editor', sha256: sha256(ACME_TOKEN), roles: ['editor'], projects: ['acme'] },
];
export const ACME_EDITOR: ActorClaims = {
  actor: 'acme-editor',
  roles: ['editor'],
  projects: ['acme'],
};
const schemas = {
  experiment: uniqueName('it_'),
  preview: uniqueName('it_'),
  enforcement: uniqueName('it_'),
  inspection: uniqueName('it_'),
  budget: uniqueName('it_'),
};
export const policyPath = (project: string, policy: string) =>
  `/v1/projects/${project}/locations/global/firewallPolicies/${policy}`;
export const policyName = (project: string, policy: string) =>
  policyPath(project, policy).slice('/v1/'.length);

let server: NatsServer;
let services: ServiceProcess[] = [];
let gateway: INestApplication;
let base: string;
const connections: NatsConnection[] = [];

export async function connectAs(user: string): Promise<NatsConnection> {
  const nc = await connect({ servers: server.url, ...credentials(user) });
  connections.push(nc);
  return nc;
}

interface Response<T = Record<string, JsonBody>> {
  status: number;
  body: T;
}

export async function call(
  method: string,
  path: string,
  body?: unknown,
  token = ADMIN_TOKEN,
): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** What nats.js reports when the server refuses a publish, a request or a JetStream API call. */
export async function permissionError(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
  } catch (error) {
    return error instanceof NatsError && error.code === 'PERMISSIONS_VIOLATION'
      ? error.code
      : String(error);
  }
  return undefined;
}

/** The server's own record of the violations of one user. */
export const violations = (user: string) =>
  server
    .log()
    .split('\n')
    .filter((line) => line.includes('Violation') && line.includes(`User "${user}"`))
    .join('\n');

/** A request sent straight onto NATS in the services' packet format, its actor assertion made by `assert` (or none). */
export async function rawRequest(
  nc: NatsConnection,
  subject: string,
  data: unknown,
  assert?: (subject: string, payload: Uint8Array) => string,
): Promise<{ err?: { status: string; details?: unknown[] }; response?: unknown }> {
  const payload = codec.encode({ pattern: subject, data, id: randomUUID() });
  const headers = natsHeaders();
  if (assert) headers.set(ACTOR_ASSERTION_HEADER, assert(subject, payload));
  return codec.decode(
    (await nc.request(subject, payload, { timeout: 10_000, headers })).data,
  ) as never;
}

export const signer = (signingKey = KEYS.signingKey, now: () => number = Date.now) =>
  new ActorAssertionSigner(parseBusKey(signingKey)!, 10_000, now);
export const signedAs =
  (claims: ActorClaims, key?: ActorAssertionSigner) => (subject: string, payload: Uint8Array) =>
    (key ?? signer()).sign(subject, payload, claims);

export const event = (id: string) => ({
  id,
  time: '2025-06-01T12:00:00.000Z',
  direction: 'INGRESS',
  srcIp: '10.0.1.1',
  destIp: '192.0.2.1',
  protocol: 'tcp',
  destPort: 22,
});

/** Publishes traffic with JetStream acks, then waits until the evaluator settled it (read as the operator). */
export async function sendTraffic(
  nc: NatsConnection,
  project: string,
  policy: string,
  ids: string[],
): Promise<void> {
  let last = 0;
  for (const id of ids)
    last = (
      await nc
        .jetstream()
        .publish(trafficSubject(project, 'global', policy), JSON.stringify(event(id)), {
          msgID: id,
        })
    ).seq;
  const admin = await connectAs('admin');
  await eventually(
    async () => {
      const info = await (
        await admin.jetstreamManager()
      ).consumers.info(TRAFFIC_STREAM, 'evaluator');
      return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
    },
    { what: 'traffic settled' },
  );
}

export async function evaluated(project: string, policy: string): Promise<number> {
  const report = await call(
    'GET',
    `${policyPath(project, policy)}/experiments/preview/previewReport`,
  );
  expect(report.status).toBe(200);
  return (report.body.configurations as { evaluated: number }[]).reduce(
    (sum, c) => sum + c.evaluated,
    0,
  );
}

export const allowSsh = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

/** A live policy with an experiment `preview` whose preview counts traffic (proved by a probe). */
export async function previewing(project: string, policy: string): Promise<void> {
  expect(
    (
      await call(
        'POST',
        `/v1/projects/${project}/locations/global/firewallPolicies?firewallPolicyId=${policy}`,
        { rules: [allowSsh] },
      )
    ).status,
  ).toBe(200);
  expect(
    (
      await call('POST', `${policyPath(project, policy)}/experiments?experimentId=preview`, {
        firewallPolicy: { rules: [] },
      })
    ).status,
  ).toBe(200);
  expect(
    (await call('POST', `${policyPath(project, policy)}/experiments/preview:startPreview`)).status,
  ).toBe(200);
  const operator = await connectAs('admin');
  await eventually(
    async () => {
      await sendTraffic(operator, project, policy, [`probe-${randomUUID()}`]);
      return (await evaluated(project, policy)) > 0 ? true : undefined;
    },
    { what: `preview of ${project}/${policy} in force`, timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** Starts the NATS server with the deployed users, the services as their own users, and the gateway. */
export async function startBusSystem(): Promise<void> {
  server = await startNatsServer(natsAuthorizationConfig(USERS));
  const env = (user: string) => ({
    NATS_URL: server.url,
    NATS_USER: user,
    NATS_PASSWORD: credentials(user).pass,
    BUS_VERIFY_KEYS: `${KEYS.verifyKey},${EVALUATOR_KEYS.verifyKey}`,
  });
  services = [
    startServiceProcess('experiment-service', {
      ...env('experiment-service'),
      DATABASE_SCHEMA: schemas.experiment,
    }),
    startServiceProcess('evaluator', {
      ...env('evaluator'),
      BUS_SIGNING_KEY: EVALUATOR_KEYS.signingKey,
      AUTO_STOP_INTERVAL_MS: '500',
      DATABASE_SCHEMA: schemas.preview,
      TRAFFIC_MAX_BYTES: String(64 * 1024 ** 2),
      PREVIEW_LOGS_MAX_BYTES: String(64 * 1024 ** 2),
    }),
    startServiceProcess('enforcement-service', {
      ...env('enforcement-service'),
      DATABASE_SCHEMA: schemas.enforcement,
    }),
    startServiceProcess('inspection-rules-service', {
      ...env('inspection-rules-service'),
      DATABASE_SCHEMA: schemas.inspection,
    }),
    startServiceProcess('budget-adapter', {
      ...env('budget-adapter'),
      DATABASE_SCHEMA: schemas.budget,
    }),
  ];
  const config = loadConfig(configSchema, {
    NATS_URL: server.url,
    NATS_USER: 'gateway',
    NATS_PASSWORD: credentials('gateway').pass,
    BUS_SIGNING_KEY: KEYS.signingKey,
    BUS_ASSERTION_TTL_MS: '20000',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AUTH_API_KEYS: JSON.stringify(API_KEYS),
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '10000',
    RPC_TIMEOUT_MS: '10000',
  });
  gateway = await startServiceApp(gatewayApp(config));
  base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  for (const service of [
    'experiment-service',
    'evaluator',
    'enforcement-service',
    'inspection-rules-service',
  ]) {
    await eventually(
      async () =>
        (await call('GET', `/v1/services/${service}`)).status === 200 ? true : undefined,
      { timeoutMs: 60_000, intervalMs: 250, what: `${service} serving` },
    );
  }
}

export async function stopBusSystem(): Promise<void> {
  await Promise.all(connections.map((nc) => nc.close()));
  await gateway?.close();
  await Promise.all(services.map((s) => s.stop()));
  await server?.stop();
  await Promise.all(Object.values(schemas).map((schema) => removeTestResources({ schema })));
}
