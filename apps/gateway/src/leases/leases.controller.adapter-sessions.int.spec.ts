import { ADAPTER_V1 } from '@rollout/contracts';
import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import {
  BLAZAR_LEASE,
  LEASE,
  TIMEOUT_MS,
  TestAdapter,
  chain,
  replaceFile,
  startProbeSystem,
} from '../../test/adapter-double';
import {
  BLAZAR_TOKEN,
  EnforcementSystem,
  sample,
  startEnforcementSystem,
} from '../../test/enforcement-system';

describe('adapter filters: sessions across reloads, a lost session and a down adapter, with the failure policy', () => {
  let nc: NatsConnection;
  let system: EnforcementSystem;
  let adapter: TestAdapter;
  let n = 0;
  const create = (project: string) =>
    system.call('POST', `/v1/projects/${project}/leases?leaseId=a-${++n}`, LEASE);
  const ask = (project: string) =>
    system.call(
      'POST',
      '/v1/blazar/check-create',
      { context: { user_id: 'alice', project_id: project }, lease: BLAZAR_LEASE },
      { 'x-auth-token': BLAZAR_TOKEN },
    );
  const reload = (yaml: string) => replaceFile(system.configFile, yaml);

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    ({ system, adapter } = await startProbeSystem(nc));
  }, 60_000);

  let closed = false;

  afterAll(async () => {
    adapter?.release();
    if (!closed) await system?.close();
    await nc?.close();
  });

  it('opens a session with Validate before CreateSession, carrying the params', () => {
    const lifecycle = adapter.received.map((r) => r.method);
    expect(lifecycle.slice(0, 3)).toEqual(['info', 'validate', 'createSession']);
    expect(adapter.received[1].body).toMatchObject({ adapterConfig: { v: 1 } });
    expect(adapter.sessions).toEqual(['createSession s1 {"v":1}']);
  });

  it('a reload with a changed handler opens a new session, then closes the old one', async () => {
    reload(chain(adapter.name, { v: 2 }, 'open'));
    await eventually(() => (adapter.sessions.length === 3 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the new session and the close of the old',
    });
    expect(adapter.sessions).toEqual([
      'createSession s1 {"v":1}',
      'createSession s2 {"v":2}',
      'closeSession s1',
    ]);
    // The new session starts with an empty cache, and its requests carry its id.
    const checks = adapter.checks('reuse');
    expect((await ask('reuse')).status).toBe(204);
    expect(adapter.received.at(-1)!.body).toMatchObject({ sessionId: 's2' });
    expect(adapter.checks('reuse')).toBe(checks + 1);
  });

  it('a slow adapter with failure_policy open lets the lease through as fail-open', async () => {
    const allowed = await create('slow');
    expect(allowed.status).toBe(200);
    expect(adapter.pending).toBe(1);
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/a-${n}/decisions`)).body
      .decisions;
    expect(decisions[0]).toMatchObject({ result: 'ALLOWED' });
    expect(decisions[0].steps[1]).toEqual({
      filter: 'probe',
      mode: 'ENFORCE',
      result: 'FAIL_OPEN',
      message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.`,
    });
    adapter.release();
  });

  it('an adapter that lost its session: that call follows the failure policy, the next one opens a new session', async () => {
    const opened = adapter.sessions.length;
    adapter.forget();
    const allowed = await create('amnesia');
    expect(allowed.status).toBe(200);
    const decisions = (await system.call('GET', `/v1/projects/amnesia/leases/a-${n}/decisions`))
      .body.decisions;
    expect(decisions[0].steps[1]).toMatchObject({
      filter: 'probe',
      result: 'FAIL_OPEN',
      message: `Adapter ${adapter.name} no longer knows session s2.`,
    });

    expect((await create('amnesia')).status).toBe(200);
    expect(adapter.sessions.slice(opened)).toEqual(['createSession s3 {"v":2}']);
    expect(adapter.received.at(-1)).toMatchObject({
      method: 'handleCheck',
      body: { sessionId: 's3' },
    });
  });

  it('an adapter that is down follows the failure policy: open lets through, closed refuses', async () => {
    adapter.stop();
    const errors = () =>
      system.metrics().then((m) =>
        sample(m, 'enforcement_adapter_call_errors_total', {
          adapter: adapter.name,
          method: 'handleCheck',
          reason: 'down',
        }),
      );
    const before = await errors();
    const open = await create('down');
    expect(open.status).toBe(200);
    const decisions = (await system.call('GET', `/v1/projects/down/leases/a-${n}/decisions`)).body
      .decisions;
    expect(decisions[0].steps[1]).toMatchObject({
      filter: 'probe',
      result: 'FAIL_OPEN',
      message: `Adapter ${adapter.name} is not running (nobody answers handleCheck).`,
    });
    expect(await errors()).toBe(before + 1);

    reload(chain(adapter.name, { v: 2 }, 'closed'));
    await eventually(async () => ((await create('down')).status === 403 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the closed policy in force',
    });
    const refused = await create('down');
    expect(refused.body.error.message).toBe('Enforcement filter probe failed.');
  });

  it('closes later a session whose CloseSession found the adapter down, once it is back; and all its sessions when it stops', async () => {
    // The reload of the previous test replaced session s3 while the adapter was down.
    expect(adapter.sessions).not.toContain('closeSession s3');
    const retries = () =>
      system.metrics().then((m) =>
        sample(m, 'enforcement_adapter_session_closes_total', {
          adapter: adapter.name,
          outcome: 'retry',
        }),
      );
    expect(await retries()).toBeGreaterThanOrEqual(1);
    adapter.start();
    await eventually(() => (adapter.sessions.includes('closeSession s3') ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the undelivered close, retried',
    });
    reload(chain(adapter.name, { v: 3 }, 'closed'));
    await eventually(
      () => (adapter.sessions.includes('createSession s4 {"v":3}') ? true : undefined),
      { timeoutMs: 15_000, what: 'a session after the adapter came back' },
    );
    expect((await create('reuse')).status).toBe(200);
    closed = true;
    await system.close();
    expect(adapter.sessions.at(-1)).toBe('closeSession s4');
    expect(adapter.sessions.filter((e) => e === 'closeSession s3')).toHaveLength(1);
  });

  it('sends Contract-Version and User-Agent with every adapter.v1 call', () => {
    const methods = new Set(adapter.received.map((r) => r.method));
    expect([...methods].sort()).toEqual([
      'closeSession',
      'createSession',
      'handleCheck',
      'info',
      'validate',
    ]);
    for (const call of adapter.received) {
      expect(call.contractVersion).toBe(`adapter.v1/${ADAPTER_V1.version}`);
      expect(call.userAgent).toMatch(/^enforcement-service\/\d+\.\d+\.\d+/);
    }
  });
});

describe('adapter filters: a CloseSession the adapter missed at shutdown', () => {
  let nc: NatsConnection;
  let system: EnforcementSystem;

  afterAll(async () => {
    await system?.close();
    await nc?.close();
  });

  it('is sent by the restarted service once the adapter is back, so the session does not stay open', async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    system = await startEnforcementSystem(chain('nobody-yet', { v: 0 }, 'closed'), {
      ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100',
      ENFORCEMENT_RETRY_BASE_MS: '200',
    });
    const adapter = new TestAdapter(nc, system.namespace, uniqueName('probe-'));
    adapter.start();
    replaceFile(system.configFile, chain(adapter.name, { v: 1 }, 'closed'));
    await eventually(() => (adapter.sessions.length === 1 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the first session',
    });

    adapter.stop();
    await nc.flush();
    await system.stopService();
    expect(adapter.sessions).toEqual(['createSession s1 {"v":1}']);

    adapter.start();
    await nc.flush();
    await system.startService();
    await eventually(() => (adapter.sessions.includes('closeSession s1') ? true : undefined), {
      timeoutMs: 40_000,
      what: 'the close missed at shutdown',
    });
    expect(adapter.sessions).toContain('createSession s2 {"v":1}');
    expect(adapter.sessions.filter((e) => e === 'closeSession s1')).toHaveLength(1);
  }, 120_000);
});
