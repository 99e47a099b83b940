import type { INestApplication } from '@nestjs/common';
import { BusUser, natsAuthorizationConfig } from '@rollout/provision';
import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { ActorClaims } from '@rollout/contracts';
import { inboxPrefixOf } from '@rollout/platform/nats';
import {
  NatsServer,
  ServiceProcess,
  eventually,
  removeTestResources,
  startNatsServer,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { JSONCodec, NatsConnection, NatsError, connect } from 'nats';
import { createHash, randomBytes } from 'node:crypto';
import { startGateway } from './gateway';

// The system the bus security specs run on: a NATS server with the deployed users and
// permissions, every service as its own NATS user, and the gateway.

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
  {
    user: 'producer-beta',
    password: password(),
    role: { kind: 'traffic-producer', projects: ['beta'] },
  },
  { user: 'agent', password: password(), role: { kind: 'inspection-agent' } },
  { user: 'provisioner', password: password(), role: { kind: 'provisioner' } },
  { user: 'admin', password: password(), role: { kind: 'admin' } },
];
/** Who connects while the system runs: the services, the gateway and the credentials handed out. */
export const RUNTIME_USERS = [
  'gateway',
  'experiment-service',
  'evaluator',
  'enforcement-service',
  'inspection-rules-service',
  'budget-adapter',
  'producer-acme',
  'agent',
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
export const policyPath = (project: string, policy: string) =>
  `/v1/projects/${project}/locations/global/firewallPolicies/${policy}`;
export const policyName = (project: string, policy: string) =>
  policyPath(project, policy).slice('/v1/'.length);

interface Response<T = Record<string, JsonBody>> {
  status: number;
  body: T;
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

/** A lease of one host an hour from now, for an hour. */
export const hostLease = (name: string) => ({
  name,
  startDate: new Date(Date.now() + 3_600_000).toISOString(),
  endDate: new Date(Date.now() + 7_200_000).toISOString(),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
});

/** What a spec file's bus, services and gateway run in; the helpers may be taken apart at its top. */
export interface BusSecuritySystem {
  /** A connection as one of the deployed users, closed after the file. */
  connectAs(user: string): Promise<NatsConnection>;
  call(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  /** A call made to set a test up, which must succeed. */
  callOk(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  /** The server's own record of the violations of one user. */
  violations(user: string): string;
}

/**
 * The one system of a spec file: the NATS server with the deployed users, the services as
 * their own users and the gateway; everything stopped and removed after the file (or the
 * `describe` it is called in).
 */
export function busSecuritySystem(): BusSecuritySystem {
  const schemas = {
    experiment: uniqueName('it_'),
    preview: uniqueName('it_'),
    enforcement: uniqueName('it_'),
    inspection: uniqueName('it_'),
    budget: uniqueName('it_'),
  };
  let server: NatsServer | undefined;
  let services: ServiceProcess[] = [];
  let gateway: INestApplication | undefined;
  let base: string;
  const connections: NatsConnection[] = [];
  const bus: BusSecuritySystem = {
    async connectAs(user) {
      const nc = await connect({ servers: server!.url, ...credentials(user) });
      connections.push(nc);
      return nc;
    },
    async call(method, path, body, token = ADMIN_TOKEN) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : {} };
    },
    async callOk(method, path, body, token) {
      const response = await bus.call(method, path, body, token);
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response;
    },
    violations: (user) =>
      server!
        .log()
        .split('\n')
        .filter((line) => line.includes('Violation') && line.includes(`User "${user}"`))
        .join('\n'),
  };

  beforeAll(async () => {
    server = await startNatsServer(natsAuthorizationConfig(USERS));
    const { url } = server;
    const env = (user: string) => ({
      NATS_URL: url,
      NATS_USER: user,
      NATS_PASSWORD: credentials(user).pass,
      // The provisioning step before each service, with its own user (see provisioned-main.ts).
      TEST_PROVISION_NATS_USER: 'provisioner',
      TEST_PROVISION_NATS_PASSWORD: credentials('provisioner').pass,
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
    ({ app: gateway, url: base } = await startGateway({
      NATS_URL: url,
      NATS_USER: 'gateway',
      NATS_PASSWORD: credentials('gateway').pass,
      BUS_SIGNING_KEY: KEYS.signingKey,
      BUS_ASSERTION_TTL_MS: '20000',
      AUTH_API_KEYS: JSON.stringify(API_KEYS),
    }));
    for (const service of [
      'experiment-service',
      'evaluator',
      'enforcement-service',
      'inspection-rules-service',
    ]) {
      await eventually(
        async () =>
          (await bus.call('GET', `/v1/services/${service}`)).status === 200 ? true : undefined,
        { timeoutMs: 60_000, intervalMs: 250, what: `${service} serving` },
      );
    }
  }, 90_000);
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await gateway?.close();
    await Promise.all(services.map((s) => s.stop()));
    await server?.stop();
    await Promise.all(Object.values(schemas).map((schema) => removeTestResources({ schema })));
  });
  return bus;
}
