import type { INestApplication } from '@nestjs/common';
import { uniqueName } from '@rollout/testing/kit';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../test/gateway';

describe('the console served by the gateway', () => {
  const built = mkdtempSync(join(tmpdir(), 'console-'));
  const started: INestApplication[] = [];

  const start = async (consoleDir: string) => {
    const { app, url } = await startGateway({
      NATS_NAMESPACE: uniqueName(),
      CONSOLE_DIR: consoleDir,
    });
    started.push(app);
    return url;
  };

  beforeAll(() => {
    mkdirSync(join(built, 'assets'));
    writeFileSync(
      join(built, 'index.html'),
      '<!doctype html><script type="module" src="/console/assets/app-1a2b.js"></script>',
    );
    writeFileSync(join(built, 'assets', 'app-1a2b.js'), 'export {};');
  });

  afterAll(async () => {
    for (const app of started) await app.close();
    rmSync(built, { recursive: true, force: true });
  });

  it('serves the built files without a token, under a policy that allows no inline script or style', async () => {
    const base = await start(built);
    const page = await fetch(`${base}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|;)script-src 'self'(;|$)/);
    expect(csp).toMatch(/(^|;)style-src 'self'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    const script = await fetch(`${base}/console/assets/app-1a2b.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    const bare = await fetch(`${base}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
    // The OpenAPI page keeps its own policy (Swagger UI needs inline scripts), the console never gets it.
    expect(
      (await fetch(`${base}/docs/openapi.json`)).headers.get('content-security-policy'),
    ).not.toBe(csp);
  });

  it('answers 404 in the error model when nothing is built', async () => {
    const base = await start(join(built, 'missing'));
    const response = await fetch(`${base}/console/`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
  });
});
