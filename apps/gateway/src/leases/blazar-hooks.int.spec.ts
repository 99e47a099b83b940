import { eventually } from '@rollout/testing';
import { IncomingMessage, Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BLAZAR_TOKEN,
  EnforcementSystem,
  hoursFromNow,
  sample,
  startEnforcementSystem,
} from '../../test/enforcement-system';

/**
 * Blazar's hooks as Blazar runs them, against a policy service started here (real HTTP, real
 * NATS and Postgres): the hook URLs and context of the seed, failures told apart from denials
 * with their configured status, and on_end delivered at least once from the outbox (retried
 * with back-off, across a restart, given up after its bound).
 */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    context: Record<string, unknown>;
    lease: Record<string, unknown>;
    current_lease?: Record<string, unknown>;
  };
}

/** What the service answers on-end, by project: fail `n` times then 204, or fail until told otherwise. */
interface OnEndScript {
  failures: number;
}

async function startPolicyService() {
  const received: Received[] = [];
  const onEnd = new Map<string, OnEndScript>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Received['body'];
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const project = String(body.context?.project_id);
      if (req.url?.endsWith('/on-end')) {
        const script = onEnd.get(project);
        if (script && script.failures > 0) {
          script.failures--;
          return res.writeHead(500).end();
        }
        return res.writeHead(204).end();
      }
      if (project === 'ext-error')
        return res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'database is down' }));
      if (project === 'ext-deny')
        return res
          .writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'Over budget.' }));
      return res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    // No path: the hooks go to /v1/<hook>, the seed's form.
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    onEnd,
    onEnds: (project: string) =>
      received.filter((r) => r.path === '/v1/on-end' && r.body.context.project_id === project),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const MAX_ATTEMPTS = 5;
const chain = (endpoint: string) => `
enabled_filters: [ExternalService]
filters:
  ExternalService:
    endpoint: "${endpoint}"
    token: policy-token
    timeout_ms: 2000
    auth_url: "https://keystone.example.com:5000/v3"
    status_on_error: 503
`;

const lease = () => ({
  name: 'hooks',
  startDate: hoursFromNow(1),
  endDate: hoursFromNow(3),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
});

describe('Blazar hooks', () => {
  let policy: Awaited<ReturnType<typeof startPolicyService>>;
  let system: EnforcementSystem;
  let n = 0;
  const create = (project: string) =>
    system.call('POST', `/v1/projects/${project}/leases?leaseId=h-${++n}`, lease());
  const deliveries = async (outcome: 'delivered' | 'retry' | 'abandoned') =>
    sample(await system.metrics(), 'enforcement_on_end_deliveries_total', {
      filter: 'ExternalService',
      outcome,
    });
  const pending = async () =>
    sample(await system.metrics(), 'enforcement_on_end_outbox_pending', {});
  const blazar = (hook: string, body: unknown) =>
    system.call('POST', `/v1/blazar/${hook}`, body, { 'x-auth-token': BLAZAR_TOKEN });

  beforeAll(async () => {
    policy = await startPolicyService();
    system = await startEnforcementSystem(chain(policy.url), {
      ENFORCEMENT_RETRY_POLL_INTERVAL_MS: '100',
      ENFORCEMENT_RETRY_BASE_MS: '200',
      ENFORCEMENT_RETRY_MAX_MS: '1000',
      ENFORCEMENT_ON_END_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await policy?.close();
  });

  it("posts each hook to <endpoint>/v1/<hook>, with the seed's context fields, auth_url included", async () => {
    expect((await create('hooks')).status).toBe(200);
    const call = policy.received.at(-1)!;
    expect(call.path).toBe('/v1/check-create');
    expect(call.headers['x-auth-token']).toBe('policy-token');
    expect(call.body.context).toEqual({
      user_id: 'alice',
      project_id: 'hooks',
      auth_url: 'https://keystone.example.com:5000/v3',
      region_name: 'RegionOne',
    });
  });

  it('answers a failing service with its own reason and the configured status, and a policy denial with PERMISSION_DENIED', async () => {
    const failed = await create('ext-error');
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({
      status: 'UNAVAILABLE',
      message: 'External service answered check-create with HTTP 500.',
    });
    expect(failed.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_FILTER_FAILED',
      metadata: { filter: 'ExternalService', hook: 'check_create' },
    });
    const denied = await create('ext-deny');
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'Over budget.',
    });
    expect(denied.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_DENIED',
      metadata: { filter: 'ExternalService' },
    });
  });

  it('retries an on_end the service failed, with back-off, until it is acknowledged; every try names the lease', async () => {
    policy.onEnd.set('flaky', { failures: 2 });
    const [retries, delivered] = [await deliveries('retry'), await deliveries('delivered')];
    expect((await create('flaky')).status).toBe(200);
    const ended = await system.call('POST', `/v1/projects/flaky/leases/h-${n}:end`);
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe('TERMINATED');
    await eventually(
      async () => ((await deliveries('delivered')) === delivered + 1 ? true : undefined),
      { timeoutMs: 15_000, intervalMs: 100, what: 'the on_end acknowledged' },
    );
    expect(await deliveries('retry')).toBe(retries + 2);
    const sent = policy.onEnds('flaky');
    expect(sent).toHaveLength(3);
    expect(sent.map((r) => r.body.lease.id)).toEqual([`h-${n}`, `h-${n}`, `h-${n}`]);
    const decisions = (await system.call('GET', `/v1/projects/flaky/leases/h-${n}/decisions`)).body
      .decisions;
    expect(
      decisions.map(
        (d: { hook: string; steps: Array<{ result: string }> }) => `${d.hook} ${d.steps[0].result}`,
      ),
    ).toEqual(['CHECK_CREATE ALLOW', 'ON_END ERROR', 'ON_END ERROR', 'ON_END ALLOW']);
    await eventually(async () => ((await pending()) === 0 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the outbox empty',
    });
  });

  it('gives an on_end up after its bound of attempts, and counts it', async () => {
    policy.onEnd.set('dead', { failures: Number.POSITIVE_INFINITY });
    const abandoned = await deliveries('abandoned');
    expect((await create('dead')).status).toBe(200);
    expect((await system.call('DELETE', `/v1/projects/dead/leases/h-${n}`)).status).toBe(200);
    await eventually(
      async () => ((await deliveries('abandoned')) === abandoned + 1 ? true : undefined),
      { timeoutMs: 20_000, intervalMs: 100, what: 'the on_end given up' },
    );
    expect(policy.onEnds('dead')).toHaveLength(MAX_ATTEMPTS);
  });

  it('delivers an on_end still owed after a restart', async () => {
    policy.onEnd.set('restart', { failures: Number.POSITIVE_INFINITY });
    expect((await create('restart')).status).toBe(200);
    expect((await system.call('POST', `/v1/projects/restart/leases/h-${n}:end`)).status).toBe(200);
    expect(policy.onEnds('restart').length).toBeGreaterThanOrEqual(1);
    await system.stopService();
    const before = policy.onEnds('restart').length;
    expect(before).toBeLessThan(MAX_ATTEMPTS);
    policy.onEnd.set('restart', { failures: 0 });
    await system.startService();
    await eventually(() => (policy.onEnds('restart').length === before + 1 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the on_end sent by the new process',
    });
    expect(policy.onEnds('restart').at(-1)!.body.lease).toMatchObject({
      id: `h-${n}`,
      name: 'hooks',
    });
    await eventually(async () => ((await pending()) === 0 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the outbox empty',
    });
  }, 120_000);

  describe('through the Blazar-compatible endpoint', () => {
    const naive = (iso: string) => iso.slice(0, 16).replace('T', ' ');
    const start = naive(hoursFromNow(2));
    const end = naive(hoursFromNow(4));
    const blazarLease = (name: string, endDate = end) => ({
      id: 'b7a1c0de-0000-4000-8000-000000000001',
      name,
      start_date: start,
      end_date: endDate,
      reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }],
    });
    const context = {
      user_id: 'u-1',
      project_id: 'blazar-hooks',
      auth_url: 'https://blazar-keystone/v3',
      region_name: 'RegionTwo',
    };

    it("passes Blazar's own auth_url on to the policy service", async () => {
      expect(
        (await blazar('check-create', { context, lease: blazarLease('via-blazar') })).status,
      ).toBe(204);
      expect(policy.received.at(-1)!.body.context).toEqual({
        user_id: 'u-1',
        project_id: 'blazar-hooks',
        auth_url: 'https://blazar-keystone/v3',
        region_name: 'RegionTwo',
      });
    });

    it('answers a check-update that only renames without asking anyone, and asks for a real change', async () => {
      const calls = policy.received.length;
      const renamed = await blazar('check-update', {
        context,
        current_lease: blazarLease('via-blazar'),
        lease: blazarLease('via-blazar-2'),
      });
      expect(renamed.status).toBe(204);
      expect(policy.received.length).toBe(calls);
      const longer = await blazar('check-update', {
        context,
        current_lease: blazarLease('via-blazar-2'),
        lease: blazarLease('via-blazar-2', naive(hoursFromNow(5))),
      });
      expect(longer.status).toBe(204);
      expect(policy.received.at(-1)!.path).toBe('/v1/check-update');
    });
  });
});
