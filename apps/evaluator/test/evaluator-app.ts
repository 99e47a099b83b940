import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { NatsNamespace, NatsRpcClient } from '@rollout/platform/nats';
import { provisionFromEnv } from '@rollout/provision';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  ServiceProcess,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import type { NatsConnection } from 'nats';
import { AppModule } from '../src/app.module';
import { configSchema } from '../src/config';

/** Test helpers: an evaluator on its own namespace and schema (see experiment-world.ts for what it reads). */
export interface Isolation {
  namespace: string;
  schema: string;
  ns: NatsNamespace;
}

export function isolation(): Isolation {
  const namespace = uniqueName();
  return { namespace, schema: uniqueName('it_'), ns: new NatsNamespace(namespace) };
}

/** Env of an evaluator on this isolation (small stream limits: many test runs share one server). */
export function evaluatorEnv(
  { namespace, schema }: Isolation,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_SCHEMA: schema,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TRAFFIC_MAX_BYTES: String(128 * 1024 ** 2),
    PREVIEW_LOGS_MAX_BYTES: String(128 * 1024 ** 2),
    PREVIEW_HOUSEKEEPING_INTERVAL_MS: '1000',
    ...extra,
  };
}

export async function startEvaluator(
  iso: Isolation,
  extra: Record<string, string> = {},
): Promise<INestApplication> {
  const env = evaluatorEnv(iso, extra);
  await provisionFromEnv({ ...env, BUS_PROVISION_SERVICES: 'evaluator' });
  const config = loadConfig(configSchema, env);
  return startServiceApp({
    name: 'evaluator',
    config,
    module: AppModule.forRoot(config),
    rpc: true,
  });
}

export interface EvaluatorProcess {
  process: ServiceProcess;
  port: number;
}

/** An evaluator as it runs in production (from main.ts, a process of its own) on this isolation, once it is ready. */
export async function startEvaluatorProcess(
  iso: Isolation,
  extra: Record<string, string> = {},
  port?: number,
): Promise<EvaluatorProcess> {
  port ??= await freePort();
  const process = startServiceProcess(
    'evaluator',
    evaluatorEnv(iso, { ...extra, PORT: String(port) }),
  );
  await eventually(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200
        ? true
        : undefined,
    // Three replicas compiling at once on a loaded 2-core machine took over 30 s to be ready.
    { timeoutMs: 60_000, intervalMs: 100, what: 'evaluator ready' },
  );
  return { process, port };
}

export const rpcClient = (nc: NatsConnection, iso: Isolation) => new NatsRpcClient(nc, iso.ns);

export async function cleanUp(iso: Isolation): Promise<void> {
  await removeTestResources({ schema: iso.schema, namespace: iso.namespace });
}
