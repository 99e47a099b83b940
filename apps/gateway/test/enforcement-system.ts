import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  ServiceProcess,
  TEST_NATS_URL,
  eventually,
  freePort,
  removeTestResources,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../src/config';
import { gatewayApp } from '../src/gateway-app';

export const ADMIN_TOKEN = 'leases-admin-token';
/** An editor of project `other` only. */
export const OTHER_TEAM_TOKEN = 'leases-other-team-token';
export const BLAZAR_TOKEN = 'blazar-service-token';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Reply<T = Record<string, JsonBody>> {
  status: number;
  body: T;
}

export interface EnforcementSystem {
  base: string;
  /** The NATS namespace of this run (adapters answer on its subjects). */
  namespace: string;
  /** The filter chain file the service watches (rewrite it to reload). */
  configFile: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply>;
  /** The enforcement-service's Prometheus metrics. */
  metrics(): Promise<string>;
  /** Stops the enforcement-service (SIGTERM, a graceful shutdown). */
  stopService(): Promise<void>;
  /** Starts the enforcement-service again on the same schema, namespace and settings. */
  startService(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The gateway in-process and the enforcement-service from its own main.ts in a child process
 * (apps never import each other), on a NATS namespace and a Postgres schema of their own, with
 * the given filter chain file.
 */
export async function startEnforcementSystem(
  enforcementYaml: string,
  env: Record<string, string> = {},
): Promise<EnforcementSystem> {
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const dir = mkdtempSync(join(tmpdir(), 'enforcement-'));
  const configFile = join(dir, 'enforcement.yaml');
  writeFileSync(configFile, enforcementYaml);
  const servicePort = await freePort();
  const serviceEnv = {
    NATS_NAMESPACE: namespace,
    DATABASE_SCHEMA: schema,
    DATABASE_POOL_SIZE: '10',
    PORT: String(servicePort),
    ENFORCEMENT_CONFIG_FILE: configFile,
    ENFORCEMENT_SWEEP_INTERVAL_MS: '200',
    ...env,
  };
  let service: ServiceProcess = startServiceProcess('enforcement-service', serviceEnv);
  let gateway: INestApplication | undefined;
  try {
    const config = loadConfig(configSchema, {
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: namespace,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      AUTH_API_KEYS: JSON.stringify([
        { name: 'alice', sha256: sha256(ADMIN_TOKEN), roles: ['admin'], projects: '*' },
        {
          name: 'other-team',
          sha256: sha256(OTHER_TEAM_TOKEN),
          roles: ['editor'],
          projects: ['other'],
        },
      ]),
      BLAZAR_AUTH_TOKEN_SHA256: sha256(BLAZAR_TOKEN),
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '10000',
      RPC_TIMEOUT_MS: '10000',
    });
    gateway = await startServiceApp(gatewayApp(config));
  } catch (error) {
    await service.stop();
    throw error;
  }
  const base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` },
  ): Promise<Reply> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  };
  const serving = () =>
    eventually(
      async () =>
        (await call('GET', '/v1/services/enforcement-service')).status === 200 ? true : undefined,
      {
        timeoutMs: 25_000,
        intervalMs: 200,
        what: 'enforcement-service serving',
      },
    );
  await serving();
  return {
    base,
    namespace,
    configFile,
    call,
    metrics: async () => (await fetch(`http://127.0.0.1:${servicePort}/metrics`)).text(),
    stopService: () => service.stop(),
    async startService() {
      service = startServiceProcess('enforcement-service', serviceEnv);
      await serving();
    },
    async close() {
      await gateway?.close();
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
      await removeTestResources({ schema, namespace });
    },
  };
}

/** A date `hours` from now, whole seconds, RFC 3339. */
export function hoursFromNow(hours: number): string {
  const date = new Date(Date.now() + hours * 3_600_000);
  date.setUTCMilliseconds(0);
  return date.toISOString().replace('.000Z', 'Z');
}

/** The value of one sample of a Prometheus text exposition, 0 when absent. */
export function sample(metrics: string, name: string, labels: Record<string, string>): number {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/**
 * The chain the leases tests run, the built-in filters: MaxLeaseDuration (1 day) and
 * MaxActiveLeases (5 per project) enforced, MaxReservationSize (4 hosts) in dryrun, project
 * `exempt` exempted.
 */
export const BUILT_IN_FILTERS_CHAIN = `
enabled_filters: [MaxLeaseDuration, MaxReservationSize, MaxActiveLeases]
exempted_projects: [exempt]
filters:
  MaxLeaseDuration: { max_lease_duration: 86400 }
  MaxReservationSize: { mode: dryrun, limits: { "physical:host": 4 } }
  MaxActiveLeases: { max_active_leases: 5, project_overrides: { roomy: 100 } }
`;

export const leases = (project: string) => `/v1/projects/${project}/leases`;
export const host = (max: number) => ({
  resourceType: 'physical:host',
  min: 1,
  max,
  resourceProperties: '["==", "$availability_zone", "az1"]',
});
/** A lease starting in an hour, of `hours` hours, with two hosts and a floating IP. */
export const lease = (hours = 2, extra: Record<string, unknown> = {}) => ({
  name: 'training run',
  startDate: hoursFromNow(1),
  endDate: hoursFromNow(1 + hours),
  reservations: [host(2), { resourceType: 'virtual:floatingip', amount: 1, networkId: 'ext-net' }],
  ...extra,
});
