import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { startServiceApp } from '@rollout/platform/service-kit';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';
import { sha256 } from './api-keys';

describe('GET /v1/principal', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    const key = (name: string, roles: string[], projects: string[] | '*') => ({
      name,
      sha256: sha256(`${name}-token`).toString('hex'),
      roles,
      projects,
    });
    const config = loadConfig(configSchema, {
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: uniqueName(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      AUTH_API_KEYS: JSON.stringify([
        key('team-editor', ['editor'], ['alpha', 'beta']),
        key('auditor', ['viewer'], '*'),
      ]),
    });
    app = await startServiceApp(gatewayApp(config));
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  const whoami = async (token?: string) => {
    const response = await fetch(`${base}/v1/principal`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("answers the token's name, roles and projects", async () => {
    expect(await whoami('team-editor-token')).toEqual({
      status: 200,
      body: {
        name: 'team-editor',
        roles: ['editor'],
        projects: ['alpha', 'beta'],
        allProjects: false,
      },
    });
    expect(await whoami('auditor-token')).toEqual({
      status: 200,
      body: { name: 'auditor', roles: ['viewer'], projects: [], allProjects: true },
    });
  });

  it('is 401 without a valid token', async () => {
    expect(await whoami()).toMatchObject({
      status: 401,
      body: { error: { status: 'UNAUTHENTICATED' } },
    });
    expect(await whoami('forged-token')).toMatchObject({
      status: 401,
      body: { error: { status: 'UNAUTHENTICATED' } },
    });
  });
});
