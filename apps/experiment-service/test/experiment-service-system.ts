import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { NatsNamespace, NatsRpcClient } from '@rollout/platform/nats';
import { provisionFromEnv } from '@rollout/provision';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { AppModule } from '../src/app.module';
import { configSchema } from '../src/config';

/** What a spec file's experiment-service runs on: filled in by the hooks `experimentServiceSystem` registers. */
export interface ExperimentServiceSystem {
  namespace: string;
  schema: string;
  /** The service's settings: the test servers, with its own namespace and schema. */
  env: Record<string, string>;
  nc: NatsConnection;
  rpc: NatsRpcClient;
  /** The test's own connection to the service's database. */
  db: Client;
  /** The service started in-process by `start`, until `stop`. */
  service: INestApplication | undefined;
  /** Provisions what the service uses, then starts it in-process, as production does. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one system of a spec file: a NATS namespace and a Postgres schema of its own, a NATS
 * connection and a database connection of the test, then `given` (which may `start` the
 * service); the service stopped and everything removed after the file (or the `describe` it is
 * called in).
 */
export function experimentServiceSystem(
  given: (system: ExperimentServiceSystem) => Promise<void> = async () => undefined,
): ExperimentServiceSystem {
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const env: Record<string, string> = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_SCHEMA: schema,
  };
  const system = { namespace, schema, env } as ExperimentServiceSystem;
  system.start = async () => {
    await provisionFromEnv({ ...env, BUS_PROVISION_SERVICES: 'experiment-service' });
    const config = loadConfig(configSchema, env);
    system.service = await startServiceApp({
      name: 'experiment-service',
      config,
      module: AppModule.forRoot(config),
      rpc: true,
    });
  };
  system.stop = async () => {
    await system.service?.close();
    system.service = undefined;
  };
  beforeAll(async () => {
    system.nc = await connect({ servers: TEST_NATS_URL });
    system.rpc = new NatsRpcClient(system.nc, new NatsNamespace(namespace));
    system.db = new Client({ connectionString: TEST_POSTGRES_URL });
    await system.db.connect();
    await given(system);
  }, 60_000);
  afterAll(async () => {
    await system.stop();
    await system.nc?.close();
    await system.db?.end();
    await removeTestResources({ schema, namespace });
  });
  return system;
}
