import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import { uniqueName } from '@rollout/testing/kit';
import { startGateway } from '../../test/gateway';
import { configSchema } from '../config';
import { sha256 } from './api-keys';

describe('gateway authentication and limits', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    ({ app, url: base } = await startGateway({
      NATS_NAMESPACE: uniqueName(),
      AUTH_API_KEYS: JSON.stringify([
        {
          name: 'reader',
          sha256: sha256('reader-token').toString('hex'),
          roles: ['viewer'],
          projects: ['alpha'],
        },
        {
          name: 'burst',
          sha256: sha256('burst-token').toString('hex'),
          roles: ['viewer'],
          projects: '*',
        },
      ]),
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '3',
    }));
  });

  afterAll(async () => {
    await app?.close();
  });

  const get = (path: string, token?: string) =>
    fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it.each([
    ['no token', undefined],
    ['an unknown token', 'nope'],
    ['a token of another scheme', 'Basic cmVhZGVyOng='],
  ])('refuses %s with 401 and no hint', async (_, token) => {
    const response = await fetch(`${base}/v1/services`, {
      headers:
        token === undefined
          ? {}
          : { authorization: token.startsWith('Basic') ? token : `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
    const { error } = (await response.json()) as { error: { status: string; message: string } };
    expect(error).toMatchObject({
      status: 'UNAUTHENTICATED',
      message: 'A valid bearer token is required.',
    });
  });

  it('lets a viewer read', async () => {
    expect((await get('/v1/services', 'reader-token')).status).toBe(200);
  });

  it('keeps probes, metrics and docs open for the kubelet and Prometheus', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/docs/openapi.json']) {
      expect((await get(path)).status).toBe(200);
    }
  });

  it("leaves Blazar's endpoint to its own X-Auth-Token check, not the bearer token", async () => {
    const response = await fetch(`${base}/v1/blazar/check-create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'A valid X-Auth-Token is required.',
    );
  });

  it('refuses an anonymous caller on every documented route but Blazar', async () => {
    const document = (await (await get('/docs/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const checked: string[] = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      if (template.startsWith('/v1/blazar/')) continue;
      const path = template.replace(/\{[^}]+\}/g, 'alpha');
      for (const method of Object.keys(operations)) {
        const response = await fetch(`${base}${path}`, { method: method.toUpperCase() });
        expect({ route: `${method} ${template}`, status: response.status }).toEqual({
          route: `${method} ${template}`,
          status: 401,
        });
        checked.push(`${method} ${template}`);
      }
    }
    expect(checked).toContain('get /v1/services');
    expect(checked.length).toBeGreaterThan(20);
  });

  it('rate-limits each principal on its own with 429 and Retry-After', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get('/v1/services', 'burst-token')).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toContain(429);
    const limited = await get('/v1/services', 'burst-token');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { status: string } }).error.status).toBe(
      'RESOURCE_EXHAUSTED',
    );
    expect((await get('/v1/services', 'reader-token')).status).toBe(200);
  });

  it('refuses oversized, deeply nested and malformed bodies with the error model', async () => {
    const post = (body: string) =>
      fetch(`${base}/v1/services`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer reader-token' },
        body,
      });
    expect((await post(`"${'a'.repeat(2 * 1024 * 1024)}"`)).status).toBe(413);
    const deep = await post('['.repeat(100) + ']'.repeat(100));
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: { message: string } }).error.message).toContain(
      'nested deeper than 32',
    );
    expect((await post('{"a":')).status).toBe(400);
  });

  it('sends security headers and no framework banner on every response, refusals and unknown routes too', async () => {
    for (const response of [
      await get('/v1/services', 'reader-token'),
      await get('/v1/services'),
      await get('/no-such-route'),
    ]) {
      expect(response.headers.get('x-powered-by')).toBeNull();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(response.headers.get('content-security-policy')).toContain(
        "script-src 'self' 'unsafe-inline'",
      );
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('gateway configuration', () => {
  it('refuses to start in production without credentials', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(
      /AUTH_API_KEYS must configure credentials \(or AUTH_JWT_\*\) in production/,
    );
    expect(() =>
      loadConfig(configSchema, {
        NODE_ENV: 'production',
        AUTH_DEV_TOKEN: 'x',
        AUTH_API_KEYS: '[]',
      }),
    ).toThrow(/AUTH_DEV_TOKEN must not be set in production/);
  });
});
