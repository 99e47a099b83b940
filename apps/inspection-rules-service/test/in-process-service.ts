import { provisionFromEnv } from '@rollout/provision';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../src/app.module';
import { configSchema } from '../src/config';

export interface TestService {
  namespace: string;
  app: INestApplication;
  close(): Promise<void>;
}

/**
 * Starts the service in-process as production does, on its own NATS namespace and Postgres
 * schema, with the given built-in rules; `close` stops it and removes both. `schema` names a
 * schema prepared beforehand (an older version's tables, to check a migration).
 */
export async function startTestService(
  builtInYaml: string,
  schema = uniqueName('it_'),
): Promise<TestService> {
  const namespace = uniqueName();
  const dir = mkdtempSync(join(tmpdir(), 'inspection-rules-'));
  const builtIns = join(dir, 'built-in.yaml');
  writeFileSync(builtIns, builtInYaml);
  await provisionFromEnv({
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    BUS_PROVISION_SERVICES: 'inspection-rules-service',
  });
  const config = loadConfig(configSchema, {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_SCHEMA: schema,
    INSPECTION_BUILT_IN_RULES: builtIns,
  });
  const app = await startServiceApp({
    name: 'inspection-rules-service',
    config,
    module: AppModule.forRoot(config),
    rpc: true,
  });
  return {
    namespace,
    app,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
      await removeTestResources({ schema, namespace });
    },
  };
}
