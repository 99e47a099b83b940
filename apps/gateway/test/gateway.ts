import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { startServiceApp } from '@rollout/platform/service-kit';
import { TEST_NATS_URL } from '@rollout/testing/kit';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../src/config';
import { gatewayApp } from '../src/gateway-app';

/**
 * The gateway in-process on the test NATS server, on a free port, quiet and without a rate limit
 * to speak of, with `settings` over those; answers it and its base URL.
 */
export async function startGateway(
  settings: Record<string, string>,
): Promise<{ app: INestApplication; url: string }> {
  const config = loadConfig(configSchema, {
    NATS_URL: TEST_NATS_URL,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '10000',
    RPC_TIMEOUT_MS: '10000',
    ...settings,
  });
  const app = await startServiceApp(gatewayApp(config));
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}
