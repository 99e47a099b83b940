import type { INestApplication } from '@nestjs/common';
import { uniqueName } from '@rollout/testing/kit';
import { startGateway } from '../../test/gateway';
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
    ({ app, url: base } = await startGateway({
      NATS_NAMESPACE: uniqueName(),
      AUTH_API_KEYS: JSON.stringify([
        key('team-editor', ['editor'], ['alpha', 'beta']),
        key('auditor', ['viewer'], '*'),
      ]),
    }));
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
