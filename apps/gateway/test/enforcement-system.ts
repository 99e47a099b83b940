import type { INestApplication } from '@nestjs/common';
import {
  ServiceProcess,
  eventually,
  freePort,
  removeTestResources,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from './gateway';

export const ADMIN_TOKEN = 'leases-admin-token';
/** An editor of project `other` only. */
export const OTHER_TEAM_TOKEN = 'leases-other-team-token';
const BLAZAR_TOKEN = 'blazar-service-token';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Reply<T = Record<string, JsonBody>> {
  status: number;
  body: T;
}

export interface EnforcementSystem {
  base: string;
  /** The NATS namespace of this run (adapters answer on its subjects). */
  namespace: string;
  /** Replaces the filter chain the service watches, as a ConfigMap update does. */
  reload(chainYaml: string): void;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply>;
  /** A call to /v1/blazar/<hook> as Blazar makes it; `token` null: no X-Auth-Token at all. */
  blazar(hook: string, body: unknown, token?: string | null): Promise<Reply>;
  /** Creates `lease` in `project` through the API, under an id of its own (`id`). */
  createLease(project: string, lease: object): Promise<Reply & { id: string }>;
  /** The enforcement-service's Prometheus metrics. */
  metrics(): Promise<string>;
  /** Stops the enforcement-service (SIGTERM, a graceful shutdown). */
  stopService(): Promise<void>;
  /** Starts the enforcement-service again on the same schema, namespace and settings. */
  startService(): Promise<void>;
  /** Stops everything and removes what the run made; closing again does nothing. */
  close(): Promise<void>;
}

/**
 * The gateway in-process and the enforcement-service from its own main.ts in a child process
 * (apps never import each other), on a NATS namespace and a Postgres schema of their own, with
 * the given filter chain file.
 */
async function startEnforcementSystem(
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
  let base: string;
  try {
    ({ app: gateway, url: base } = await startGateway({
      NATS_NAMESPACE: namespace,
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
    }));
  } catch (error) {
    await service.stop();
    throw error;
  }
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
        // Generous: the service process boots through the TypeScript loader, slow on a loaded machine.
        timeoutMs: 50_000,
        intervalMs: 200,
        what: 'enforcement-service serving',
      },
    );
  await serving();
  let leasesCreated = 0;
  let closed: Promise<void> | undefined;
  return {
    base,
    namespace,
    // Atomically: a file written in place can be polled while truncated, and an empty file is
    // the default chain.
    reload(chainYaml) {
      writeFileSync(`${configFile}.next`, chainYaml);
      renameSync(`${configFile}.next`, configFile);
    },
    call,
    blazar: (hook, body, token = BLAZAR_TOKEN) =>
      call('POST', `/v1/blazar/${hook}`, body, token === null ? {} : { 'x-auth-token': token }),
    async createLease(project, lease) {
      const id = `lease-${++leasesCreated}`;
      return { ...(await call('POST', `/v1/projects/${project}/leases?leaseId=${id}`, lease)), id };
    },
    metrics: async () => (await fetch(`http://127.0.0.1:${servicePort}/metrics`)).text(),
    stopService: () => service.stop(),
    async startService() {
      service = startServiceProcess('enforcement-service', serviceEnv);
      await serving();
    },
    close() {
      closed ??= (async () => {
        await gateway?.close();
        await service.stop();
        rmSync(dir, { recursive: true, force: true });
        await removeTestResources({ schema, namespace });
      })();
      return closed;
    },
  };
}

/** What a kit does around the system of `enforcementSystem`, on the handle it fills in. */
export interface AroundSystem<S extends EnforcementSystem> {
  /** Before the system starts (e.g. a policy service the chain names). */
  given?(system: S): Promise<void>;
  /** Once the system serves (e.g. an adapter the chain is then pointed at). */
  started?(system: S): Promise<void>;
  /** After the system is closed. */
  closed?(system: S): Promise<void>;
}

/**
 * The one system of a spec file (or of the `describe` it is called in): started before its
 * tests with the filter chain `chain` (or the chain `given` makes possible) and `env` beside the
 * test settings, closed after them. The handle is filled in by the hooks; a kit gives it its own
 * members (`S`) in `around`.
 */
export function enforcementSystem<S extends EnforcementSystem = EnforcementSystem>(
  chain: string | ((system: S) => string),
  env: Record<string, string> = {},
  around: AroundSystem<S> = {},
): S {
  const system = {} as S;
  beforeAll(async () => {
    await around.given?.(system);
    const chainYaml = typeof chain === 'string' ? chain : chain(system);
    Object.assign(system, await startEnforcementSystem(chainYaml, env));
    await around.started?.(system);
  }, 90_000);
  afterAll(async () => {
    await system.close?.();
    await around.closed?.(system);
  });
  return system;
}

/** A server a filter of the chain calls (a policy service): its base URL, and its end. */
interface PolicyServer {
  url: string;
  close(): Promise<void>;
}

export interface PolicySystem<P extends PolicyServer> extends EnforcementSystem {
  policy: P;
  /** Creates the kit's lease in `project` through the API, under a new id (`id`). */
  create(project: string): Promise<Reply & { id: string }>;
}

/**
 * A system whose chain, made from its URL, calls the server `startPolicy` starts before it (and
 * which is closed after it); `create` makes leases shaped by `lease`.
 */
export function policySystem<P extends PolicyServer>(
  startPolicy: () => Promise<P>,
  chain: (policyUrl: string) => string,
  env: Record<string, string>,
  lease: () => object,
): PolicySystem<P> {
  const system = enforcementSystem<PolicySystem<P>>(({ policy }) => chain(policy.url), env, {
    async given(system) {
      system.policy = await startPolicy();
    },
    async closed({ policy }) {
      await policy?.close();
    },
  });
  system.create = (project) => system.createLease(project, lease());
  return system;
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
