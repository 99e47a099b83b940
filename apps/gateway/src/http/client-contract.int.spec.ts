import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { START_TIME_FEATURE, SYSTEM_V1 } from '@rollout/contracts';
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
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

/**
 * The runtime side of the compatibility policy through the gateway, with the experiment-service
 * in its own process: HTTP clients named by User-Agent in the metrics, a deprecated field
 * (experiment.v1 CommitRequest.parentEtag) answered with Deprecation/Sunset/Link and counted,
 * and the system.v1 start-time feature sent only to a client that declares it.
 */
const namespace = uniqueName();
const schema = uniqueName('it_');
const TOKEN = 'client-contract-test-token';
const API_KEYS = [
  {
    name: 'test-admin',
    sha256: createHash('sha256').update(TOKEN).digest('hex'),
    roles: ['admin'],
    projects: '*',
  },
];
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const rule = (priority: number) => ({
  priority,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['0.0.0.0/0'] },
});

let gateway: INestApplication;
let service: ServiceProcess;
let base: string;

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, JsonBody>;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'user-agent': 'acme-cli/2.0.1',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** The value of one sample of a gateway counter, 0 when it has none with these labels. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** A live policy and an experiment of it, ready to commit. */
async function candidate(policy: string) {
  const live = (await call('POST', `${P}?firewallPolicyId=${policy}`, { rules: [rule(10)] })).body;
  const experiment = (
    await call('POST', `${P}/${policy}/experiments?experimentId=candidate`, {
      firewallPolicy: { rules: [rule(3)] },
    })
  ).body.response;
  return { live, experiment, commit: `${P}/${policy}/experiments/candidate:commit` };
}

beforeAll(async () => {
  service = startServiceProcess('experiment-service', {
    NATS_NAMESPACE: namespace,
    DATABASE_SCHEMA: schema,
    DATABASE_POOL_SIZE: '5',
  });
  const config = loadConfig(configSchema, {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AUTH_API_KEYS: JSON.stringify(API_KEYS),
    RPC_TIMEOUT_MS: '10000',
  });
  gateway = await startServiceApp(gatewayApp(config));
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
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await service?.stop();
  await removeTestResources({ schema, namespace });
});

describe('a deprecated field over HTTP', () => {
  it('parentEtag still works, and the answer says it is deprecated (Deprecation, Sunset, Link) and it is counted', async () => {
    const before = await sample('deprecated_feature_use_total', {
      contract: 'experiment.v1',
      field: 'CommitRequest.parentEtag',
      client: 'acme-cli',
    });
    const { live, experiment, commit } = await candidate('old-name');
    const stale = await call('POST', commit, { etag: experiment.etag, parentEtag: 'W/"stale"' });
    expect(stale.status).toBe(409);
    const committed = await call('POST', commit, { etag: experiment.etag, parentEtag: live.etag });
    expect(committed.status).toBe(200);
    expect(committed.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-23') / 1000}`);
    expect(committed.headers.get('sunset')).toBe('Fri, 31 Dec 2027 00:00:00 GMT');
    expect(committed.headers.get('link')).toBe('</docs>; rel="deprecation"; type="text/html"');
    expect(
      await sample('deprecated_feature_use_total', {
        contract: 'experiment.v1',
        field: 'CommitRequest.parentEtag',
        client: 'acme-cli',
      }),
    ).toBe(before + 2);
  });

  it('livePolicyEtag means the same, without the deprecation headers; the two names disagreeing is 400', async () => {
    const { live, experiment, commit } = await candidate('new-name');
    expect(
      (await call('POST', commit, { etag: experiment.etag, livePolicyEtag: 'W/"stale"' })).status,
    ).toBe(409);
    const conflicting = await call('POST', commit, {
      etag: experiment.etag,
      livePolicyEtag: live.etag,
      parentEtag: 'W/"other"',
    });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error.details[0].fieldViolations[0].field).toBe('parentEtag');
    const committed = await call('POST', commit, {
      etag: experiment.etag,
      livePolicyEtag: live.etag,
    });
    expect(committed.status).toBe(200);
    expect(committed.body.response.rules).toEqual([rule(3)]);
    expect(committed.headers.get('deprecation')).toBeNull();
    expect(committed.headers.get('sunset')).toBeNull();
  });
});

describe('clients and features over HTTP', () => {
  it('counts HTTP requests by the User-Agent product name', async () => {
    const before = await sample('contract_client_requests_total', {
      transport: 'http',
      client: 'acme-cli',
    });
    await call('GET', '/v1/services/experiment-service');
    expect(
      await sample('contract_client_requests_total', { transport: 'http', client: 'acme-cli' }),
    ).toBe(before + 1);
  });

  it('GET /v1/services lists packages with semver and features; startTime only for a client that declared it', async () => {
    const plain = (await call('GET', '/v1/services')).body.services as Record<string, JsonBody>[];
    const serving = plain.filter((s) => s.state === 'SERVING').map((s) => s.name);
    expect(serving).toEqual(expect.arrayContaining(['gateway', 'experiment-service']));
    for (const status of plain) {
      expect(status.startTime).toBeUndefined();
      if (status.state === 'SERVING') {
        expect(status.contracts).toContainEqual({
          name: 'system.v1',
          version: SYSTEM_V1.version,
          features: [START_TIME_FEATURE],
        });
      }
    }
    const declared = (
      await call('GET', '/v1/services', undefined, {
        'client-features': `com.acme.other, ${START_TIME_FEATURE}`,
      })
    ).body.services as Record<string, JsonBody>[];
    for (const status of declared.filter((s) => s.state === 'SERVING')) {
      expect(Date.parse(status.startTime)).toBeLessThanOrEqual(Date.now());
    }
    expect(declared.filter((s) => s.startTime).map((s) => s.name)).toEqual(
      expect.arrayContaining(['gateway', 'experiment-service']),
    );
    expect(
      await sample('contract_client_features_total', {
        transport: 'http',
        client: 'acme-cli',
        feature: START_TIME_FEATURE,
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});
