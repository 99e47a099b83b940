import type { RunningSystem, ServiceName } from '@rollout/launcher';
import { SERVICES } from '@rollout/launcher';
import { removeRun, startSystem } from './support';

/** The whole system, built and started as `npm start` does, driven over HTTP. */
describe('the running system', () => {
  let system: RunningSystem;
  let database: string;
  let ports: Record<ServiceName, number>;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${system.urls.gateway}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${system.devToken}`, ...init.headers },
    });

  beforeAll(async () => {
    ({ system, database, ports } = await startSystem());
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  it('lists all five services with their version and contracts, gathered over NATS', async () => {
    const response = await api('/v1/services');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      services: { name: string; state: string; version: string; contracts: { name: string }[] }[];
    };
    expect(body.services.map((s) => s.name)).toEqual(SERVICES.map((s) => s.name));
    for (const service of body.services) {
      expect(service.state).toBe('SERVING');
      expect(service.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(service.contracts.map((c) => c.name)).toContain('system.v1');
    }
  });

  it('serves the OpenAPI page and document', async () => {
    const page = await fetch(system.urls.docs);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger');
    const document = (await (await fetch(`${system.urls.docs}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/services', '/v1/services/{service}']),
    );
  });

  it('has every service live, ready on NATS and Postgres, and exporting metrics', async () => {
    for (const service of SERVICES) {
      const base = `http://127.0.0.1:${ports[service.name]}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = (await (await fetch(`${base}/readyz`)).json()) as {
        status: string;
        checks: Record<string, { status: string }>;
      };
      expect(ready.status).toBe('ok');
      expect(ready.checks.nats.status).toBe('up');
      if (service.name !== 'gateway') expect(ready.checks.postgres.status).toBe('up');
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('process_cpu_seconds_total');
    }
  });

  it('answers errors in the error model, with the caller request id', async () => {
    const response = await api('/v1/nothing-here', { headers: { 'x-request-id': 'trace-42' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('trace-42');
    const { error } = (await response.json()) as {
      error: { code: number; status: string; details: { requestId?: string }[] };
    };
    expect(error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RequestInfo',
      requestId: 'trace-42',
    });
  });

  it('answers 503 for a stopped service at once, and keeps serving the others', async () => {
    await system.stopService('enforcement-service');

    const started = Date.now();
    const response = await api('/v1/services/enforcement-service');
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000); // well within RPC_TIMEOUT_MS: never a hung request
    const { error } = (await response.json()) as { error: { status: string; message: string } };
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toContain('enforcement-service');

    expect((await api('/v1/services/evaluator')).status).toBe(200);
    const list = (await (await api('/v1/services')).json()) as {
      services: { name: string; state: string }[];
    };
    expect(list.services.find((s) => s.name === 'enforcement-service')?.state).toBe('UNAVAILABLE');
    expect(list.services.filter((s) => s.state === 'SERVING')).toHaveLength(4);
  });
});
