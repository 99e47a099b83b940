import type { INestApplication } from '@nestjs/common';
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
import { startGateway } from './gateway';

// AIP-236 through the gateway: the gateway in-process, the experiment-service from its own
// main.ts in a child process (apps never import each other), on one NATS namespace and a
// Postgres schema of their own.

export const TOKEN = 'experiments-test-token';
/** An editor of another team's project only. */
export const OTHER_TEAM_TOKEN = 'other-team-token';
/** A second principal with the editor role on acme: a reviewer of test-admin's commits. */
export const ACME_EDITOR_TOKEN = 'acme-editor-token';
const apiKey = (name: string, token: string, roles: string[], projects: string[] | '*') => ({
  name,
  sha256: createHash('sha256').update(token).digest('hex'),
  roles,
  projects,
});
const API_KEYS = [
  apiKey('test-admin', TOKEN, ['admin'], '*'),
  apiKey('other-team', OTHER_TEAM_TOKEN, ['editor'], ['other']),
  apiKey('acme-editor', ACME_EDITOR_TOKEN, ['editor'], ['acme']),
];
export const P = '/v1/projects/acme/locations/global/firewallPolicies';
export const rule = (priority: number, action = 'deny') => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
});

export const idsOf = (experiments: { name: string }[] = []) =>
  experiments.map((e) => e.name.split('/').at(-1));

export interface Response<T = Record<string, JsonBody>> {
  status: number;
  body: T;
}

/**
 * What a spec file's gateway and experiment-service run in. The helpers are bound at once (a
 * spec may take them apart at its top); `nc` and `url` are filled in by the hooks
 * `experimentsSystem` registers.
 */
export interface ExperimentsSystem {
  namespace: string;
  schema: string;
  /** The test's own NATS connection, to read the streams. */
  nc: NatsConnection;
  /** The gateway's base URL, for requests `call` cannot make (raw bodies, other content types). */
  url: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** As `call`, with the answer's headers. */
  reply(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<Response & { headers: Headers }>;
  createPolicy(id: string, rules?: unknown[]): Promise<Record<string, JsonBody>>;
  /** Answers the experiment (the create operation's response). */
  createExperiment(policy: string, id: string, rules?: unknown[]): Promise<JsonBody>;
  /** The value of one sample of a gateway counter, 0 when it has none with these labels. */
  sample(metric: string, labels: Record<string, string>): Promise<number>;
}

/** The value of one sample of the counter `metric` of the gateway at `url`, 0 when it has none with these labels. */
export async function counterSample(
  url: string,
  metric: string,
  labels: Record<string, string>,
): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${metric}{`) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * The one system of a spec file: the experiment-service (its own process) and the gateway,
 * and a NATS connection; everything stopped and removed after the file (or the `describe` it
 * is called in).
 */
export function experimentsSystem(): ExperimentsSystem {
  let gateway: INestApplication | undefined;
  let service: ServiceProcess | undefined;
  // `nc` and `url` come with the hooks.
  const system = {
    namespace: uniqueName(),
    schema: uniqueName('it_'),
    async reply(method, path, body, token = TOKEN, headers = {}) {
      const response = await fetch(`${system.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text ? JSON.parse(text) : {},
      };
    },
    async call(...request) {
      const { status, body } = await system.reply(...request);
      return { status, body };
    },
    async createPolicy(id, rules = []) {
      const created = await system.call('POST', `${P}?firewallPolicyId=${id}`, {
        displayName: id,
        rules,
      });
      expect(created.status).toBe(200);
      return created.body;
    },
    async createExperiment(policy, id, rules = [rule(100)]) {
      const created = await system.call('POST', `${P}/${policy}/experiments?experimentId=${id}`, {
        firewallPolicy: { rules },
      });
      expect(created.status).toBe(200);
      return created.body.response;
    },
    sample: (metric, labels) => counterSample(system.url, metric, labels),
  } as ExperimentsSystem;

  beforeAll(async () => {
    service = startServiceProcess('experiment-service', {
      NATS_NAMESPACE: system.namespace,
      DATABASE_SCHEMA: system.schema,
      DATABASE_POOL_SIZE: '20',
    });
    ({ app: gateway, url: system.url } = await startGateway({
      NATS_NAMESPACE: system.namespace,
      AUTH_API_KEYS: JSON.stringify(API_KEYS),
    }));
    await eventually(
      async () =>
        (await system.call('GET', '/v1/services/experiment-service')).status === 200
          ? true
          : undefined,
      { timeoutMs: 25_000, intervalMs: 200, what: 'experiment-service serving' },
    );
    system.nc = await connect({ servers: TEST_NATS_URL });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await service?.stop();
    await system.nc?.close();
    await removeTestResources({ schema: system.schema, namespace: system.namespace });
  });
  return system;
}
