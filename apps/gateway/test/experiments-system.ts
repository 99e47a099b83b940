import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  ServiceProcess,
  TEST_NATS_URL,
  eventually,
  removeTestResources,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../src/config';
import { gatewayApp } from '../src/gateway-app';

/**
 * AIP-236 through the gateway: the gateway in-process, the experiment-service from its own
 * main.ts in a child process (apps never import each other), on one NATS namespace and a
 * Postgres schema of their own (one per test file).
 */
export const namespace = uniqueName();
export const schema = uniqueName('it_');
export const TOKEN = 'experiments-test-token';
/** An editor of another team's project only. */
export const OTHER_TEAM_TOKEN = 'other-team-token';
const apiKey = (name: string, token: string, roles: string[], projects: string[] | '*') => ({
  name,
  sha256: createHash('sha256').update(token).digest('hex'),
  roles,
  projects,
});
const API_KEYS = [
  apiKey('test-admin', TOKEN, ['admin'], '*'),
  apiKey('other-team', OTHER_TEAM_TOKEN, ['editor'], ['other']),
];
export const P = '/v1/projects/acme/locations/global/firewallPolicies';
export const rule = (priority: number, action = 'deny') => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
});

let gateway: INestApplication;
let service: ServiceProcess;
let base: string;
let nc: NatsConnection;

export interface Response<T = Record<string, JsonBody>> {
  status: number;
  body: T;
}

export async function call(
  method: string,
  path: string,
  body?: unknown,
  token = TOKEN,
  headers: Record<string, string> = {},
): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

export async function createPolicy(id: string, rules: unknown[] = []) {
  const created = await call('POST', `${P}?firewallPolicyId=${id}`, { displayName: id, rules });
  expect(created.status).toBe(200);
  return created.body;
}

export async function createExperiment(policy: string, id: string, rules: unknown[] = [rule(100)]) {
  const created = await call('POST', `${P}/${policy}/experiments?experimentId=${id}`, {
    firewallPolicy: { rules },
  });
  expect(created.status).toBe(200);
  return created.body.response;
}

export const idsOf = (experiments: { name: string }[] = []) =>
  experiments.map((e) => e.name.split('/').at(-1));

/** Starts the experiment-service (its own process) and the gateway, and connects to NATS. */
export async function startExperimentsSystem(): Promise<void> {
  const common = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  service = startServiceProcess('experiment-service', {
    NATS_NAMESPACE: namespace,
    DATABASE_SCHEMA: schema,
    DATABASE_POOL_SIZE: '20',
  });
  const gatewayConfig = loadConfig(configSchema, {
    ...common,
    AUTH_API_KEYS: JSON.stringify(API_KEYS),
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '10000',
    RPC_TIMEOUT_MS: '10000',
  });
  gateway = await startServiceApp(gatewayApp(gatewayConfig));
  base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  await eventually(
    async () =>
      (await call('GET', '/v1/services/experiment-service')).status === 200 ? true : undefined,
    {
      timeoutMs: 25_000,
      intervalMs: 200,
      what: 'experiment-service serving',
    },
  );
  nc = await connect({ servers: TEST_NATS_URL });
}

export async function stopExperimentsSystem(): Promise<void> {
  await gateway?.close();
  await service?.stop();
  await nc?.close();
  await removeTestResources({ schema, namespace });
}

/** The test's own NATS connection, to read the streams. */
export function natsConnection(): NatsConnection {
  return nc;
}

/** The gateway's base URL, for requests `call` cannot make (raw bodies, other content types). */
export function gatewayUrl(): string {
  return base;
}
