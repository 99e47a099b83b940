import { ADAPTER_V1 } from '@rollout/contracts';
import { ServiceProcess, TEST_NATS_URL, eventually, freePort, removeTestResources, startServiceProcess, uniqueName } from '@rollout/testing';
import { renameSync, writeFileSync } from 'node:fs';
import { JSONCodec, Msg, NatsConnection, Subscription, connect } from 'nats';
import { BLAZAR_TOKEN, EnforcementSystem, hoursFromNow, sample, startEnforcementSystem } from './test-system';

/**
 * Replaces the chain file atomically, as a ConfigMap update does: a file written in place can be
 * polled while truncated, and an empty file is the default chain, without the adapter filter.
 */
function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.next`, text);
  renameSync(`${path}.next`, path);
}

/**
 * Adapter filters (adapter.v1 over NATS) through the gateway. A small adapter written here with
 * the raw `nats` client on the real server (a real process speaking the contract) answers by
 * the lease's project, so one adapter covers every case: cached allows and denials with chosen
 * validity, a slow answer; it records its sessions so reloads and shutdown can be observed.
 */
const codec = JSONCodec<Record<string, unknown>>();
const OK = { code: 0, status: 'OK', message: '', details: [] };
const TIMEOUT_MS = 300;

interface Received {
  method: string;
  body: Record<string, unknown>;
  /** The call's `Contract-Version` and `User-Agent` headers. */
  contractVersion?: string;
  userAgent?: string;
}

/** An adapter.v1 implementation on the namespace's subjects. */
class TestAdapter {
  readonly received: Received[] = [];
  /** Lifecycle events in order: `createSession s1 {"v":1}`, `closeSession s1`. */
  readonly sessions: string[] = [];
  /** Slow answers not sent yet. */
  pending = 0;
  private sessionCount = 0;
  /** Sessions open now; `forget` loses them as an adapter restarted without its state would. */
  private readonly open = new Set<string>();
  private readonly held: (() => void)[] = [];
  private subscription?: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    readonly name: string,
  ) {}

  start(): void {
    this.subscription = this.nc.subscribe(`${this.namespace}.adapter.v1.${this.name}.*`, { queue: this.name, callback: (_e, msg) => this.answer(msg) });
  }

  checks(project: string): number {
    return this.received.filter((r) => r.method === 'handleCheck' && (r.body.instance as { context: { projectId: string } }).context.projectId === project).length;
  }

  forget(): void {
    this.open.clear();
  }

  /** Sends the slow answers that are still held (the service gave up on them long ago). */
  release(): void {
    for (const send of this.held.splice(0)) send();
  }

  private answer(msg: Msg): void {
    const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    const body = codec.decode(msg.data);
    this.received.push({ method, body, contractVersion: msg.headers?.get('Contract-Version'), userAgent: msg.headers?.get('User-Agent') });
    const reply = (data: unknown): void => {
      msg.respond(codec.encode(data as Record<string, unknown>));
    };
    switch (method) {
      case 'info':
        return reply({ name: this.name, description: 'test adapter', templates: ['check', 'quota', 'report'], sessionBased: true });
      case 'validate':
        return reply({ status: OK });
      case 'createSession': {
        const sessionId = `s${++this.sessionCount}`;
        this.sessions.push(`createSession ${sessionId} ${JSON.stringify(body.adapterConfig)}`);
        this.open.add(sessionId);
        return reply({ sessionId, status: OK });
      }
      case 'closeSession':
        this.sessions.push(`closeSession ${String(body.sessionId)}`);
        this.open.delete(String(body.sessionId));
        return reply({ status: OK });
      case 'handleCheck': {
        if (!this.open.has(String(body.sessionId))) {
          return reply({ status: { code: 9, status: 'FAILED_PRECONDITION', message: `Session ${String(body.sessionId)} is unknown.`, details: [] } });
        }
        const project = (body.instance as { context: { projectId: string } }).context.projectId;
        if (project === 'slow') {
          this.pending++;
          this.held.push(() => {
            this.pending--;
            reply({ status: OK, validDuration: 0, validUseCount: 0 });
          });
          return;
        }
        if (project === 'blocked') {
          return reply({ status: { code: 403, status: 'PERMISSION_DENIED', message: 'Project blocked is not in the CMDB.', details: [] }, validDuration: 60_000, validUseCount: 1000 });
        }
        // `uses`: reusable twice; `brief`: for 300 ms; every other project: for a minute, 1000 times.
        if (project === 'uses') return reply({ status: OK, validDuration: 60_000, validUseCount: 2 });
        if (project === 'brief') return reply({ status: OK, validDuration: 300, validUseCount: 1000 });
        return reply({ status: OK, validDuration: 60_000, validUseCount: 1000 });
      }
      default:
        return reply({ status: OK, quotas: {} });
    }
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

const chain = (adapter: string, params: Record<string, unknown>, failurePolicy: 'open' | 'closed') => `
enabled_filters: [MaxLeaseDuration, probe]
filters:
  MaxLeaseDuration: { max_lease_duration: 604800 }
  probe:
    adapter: ${adapter}
    params: ${JSON.stringify(params)}
    templates: [check]
    failure_policy: ${failurePolicy}
    timeout_ms: ${TIMEOUT_MS}
`;

/** Always the same shape, under a new id each time: a different lease for the check cache. */
const LEASE = { name: 'probe', startDate: hoursFromNow(24), endDate: hoursFromNow(26), reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }] };
/** One Blazar lease (by its name), which Blazar may ask about again: the same lease for the check cache. */
const BLAZAR_LEASE = { name: 'probe', start_date: LEASE.startDate, end_date: LEASE.endDate, reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }] };

describe('adapter filters: sessions, check cache, failure policy', () => {
  let nc: NatsConnection;
  let system: EnforcementSystem;
  let adapter: TestAdapter;
  let n = 0;
  const create = (project: string) => system.call('POST', `/v1/projects/${project}/leases?leaseId=a-${++n}`, LEASE);
  const ask = (project: string) =>
    system.call('POST', '/v1/blazar/check-create', { context: { user_id: 'alice', project_id: project }, lease: BLAZAR_LEASE }, { 'x-auth-token': BLAZAR_TOKEN });
  const lookups = async (result: 'hit' | 'miss') => sample(await system.metrics(), 'enforcement_adapter_check_cache_total', { handler: 'probe', result });
  const reload = (yaml: string) => replaceFile(system.configFile, yaml);

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    const name = uniqueName('probe-');
    // The service's namespace is only known once it runs: start it, then the adapter, then
    // point the chain at the adapter (a reload, which opens the session).
    system = await startEnforcementSystem(chain('nobody-yet', { v: 0 }, 'closed'), { ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100' });
    adapter = new TestAdapter(nc, system.namespace, name);
    adapter.start();
    reload(chain(name, { v: 1 }, 'closed'));
    await eventually(() => (adapter.sessions.length === 1 ? true : undefined), { timeoutMs: 15_000, what: 'the first session' });
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

  it('reuses a cached check result for the same lease, sending the session id', async () => {
    const hits = await lookups('hit');
    for (let i = 0; i < 4; i++) expect((await ask('reuse')).status).toBe(204);
    expect(adapter.checks('reuse')).toBe(1);
    expect(await lookups('hit')).toBe(hits + 3);
    const check = adapter.received.find((r) => r.method === 'handleCheck')!;
    expect(check.body).toMatchObject({ sessionId: 's1', instance: { hook: 'create', context: { projectId: 'reuse', userId: 'alice' }, lease: { name: 'probe', id: 'blazar:probe' } } });
  });

  it('never reuses a result for another lease, however alike, and tells the adapter the id users see', async () => {
    const checks = adapter.checks('reuse');
    for (let i = 0; i < 2; i++) expect((await create('reuse')).status).toBe(200);
    expect(adapter.checks('reuse')).toBe(checks + 2);
    const [first, second] = adapter.received.filter((r) => r.method === 'handleCheck').slice(-2).map((r) => (r.body.instance as { lease: { id: string; apiId: string } }).lease);
    expect([first.apiId, second.apiId]).toEqual([`a-${n - 1}`, `a-${n}`]);
    expect(first.id).not.toBe(second.id);
  });

  it('uses a result validUseCount times, then asks again', async () => {
    for (let i = 0; i < 4; i++) expect((await ask('uses')).status).toBe(204);
    // ask, reuse, reuse, ask
    expect(adapter.checks('uses')).toBe(2);
  });

  it('asks again once validDuration has passed', async () => {
    expect((await ask('brief')).status).toBe(204);
    expect(adapter.checks('brief')).toBe(1);
    // Far fewer than 1000 uses: only the 300 ms validity can make it ask again.
    await eventually(async () => ((await ask('brief')).status === 204 && adapter.checks('brief') === 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 100, what: 'a second check' });
  });

  it("denies with the adapter's message, and caches the denial for that lease", async () => {
    const refused = await create('blocked');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Project blocked is not in the CMDB.');
    expect(refused.body.error.details[0]).toMatchObject({ reason: 'ENFORCEMENT_DENIED', metadata: { filter: 'probe' } });
    for (let i = 0; i < 2; i++) {
      const again = await ask('blocked');
      expect(again.status).toBe(403);
      expect(again.body).toEqual({ message: 'Project blocked is not in the CMDB.' });
    }
    expect(adapter.checks('blocked')).toBe(2);
  });

  it('a slow adapter with failure_policy closed is a refusal, without waiting for its answer', async () => {
    const refused = await create('slow');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Enforcement filter probe failed.');
    expect(refused.body.error.details[0]).toMatchObject({ reason: 'ENFORCEMENT_FILTER_FAILED', metadata: { filter: 'probe' } });
    expect(adapter.pending).toBe(1);
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/a-${n}/decisions`)).body.decisions;
    expect(decisions[0].steps[1]).toEqual({ filter: 'probe', mode: 'ENFORCE', result: 'ERROR', message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.` });
    adapter.release();
  });

  it('a reload with a changed handler opens a new session, then closes the old one', async () => {
    reload(chain(adapter.name, { v: 2 }, 'open'));
    await eventually(() => (adapter.sessions.length === 3 ? true : undefined), { timeoutMs: 15_000, what: 'the new session and the close of the old' });
    expect(adapter.sessions).toEqual(['createSession s1 {"v":1}', 'createSession s2 {"v":2}', 'closeSession s1']);
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
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/a-${n}/decisions`)).body.decisions;
    expect(decisions[0]).toMatchObject({ result: 'ALLOWED' });
    expect(decisions[0].steps[1]).toEqual({ filter: 'probe', mode: 'ENFORCE', result: 'FAIL_OPEN', message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.` });
    adapter.release();
  });

  it('an adapter that lost its session: that call follows the failure policy, the next one opens a new session', async () => {
    const opened = adapter.sessions.length;
    adapter.forget();
    const allowed = await create('amnesia');
    expect(allowed.status).toBe(200);
    const decisions = (await system.call('GET', `/v1/projects/amnesia/leases/a-${n}/decisions`)).body.decisions;
    expect(decisions[0].steps[1]).toMatchObject({ filter: 'probe', result: 'FAIL_OPEN', message: `Adapter ${adapter.name} no longer knows session s2.` });

    expect((await create('amnesia')).status).toBe(200);
    expect(adapter.sessions.slice(opened)).toEqual(['createSession s3 {"v":2}']);
    expect(adapter.received.at(-1)).toMatchObject({ method: 'handleCheck', body: { sessionId: 's3' } });
  });

  it('an adapter that is down follows the failure policy: open lets through, closed refuses', async () => {
    adapter.stop();
    const errors = () => system.metrics().then((m) => sample(m, 'enforcement_adapter_call_errors_total', { adapter: adapter.name, method: 'handleCheck', reason: 'down' }));
    const before = await errors();
    const open = await create('down');
    expect(open.status).toBe(200);
    const decisions = (await system.call('GET', `/v1/projects/down/leases/a-${n}/decisions`)).body.decisions;
    expect(decisions[0].steps[1]).toMatchObject({ filter: 'probe', result: 'FAIL_OPEN', message: `Adapter ${adapter.name} is not running (nobody answers handleCheck).` });
    expect(await errors()).toBe(before + 1);

    reload(chain(adapter.name, { v: 2 }, 'closed'));
    await eventually(async () => ((await create('down')).status === 403 ? true : undefined), { timeoutMs: 15_000, intervalMs: 100, what: 'the closed policy in force' });
    const refused = await create('down');
    expect(refused.body.error.message).toBe('Enforcement filter probe failed.');
  });

  it('closes later a session whose CloseSession found the adapter down, once it is back; and all its sessions when it stops', async () => {
    // The reload of the previous test replaced session s3 while the adapter was down.
    expect(adapter.sessions).not.toContain('closeSession s3');
    const retries = () => system.metrics().then((m) => sample(m, 'enforcement_adapter_session_closes_total', { adapter: adapter.name, outcome: 'retry' }));
    expect(await retries()).toBeGreaterThanOrEqual(1);
    adapter.start();
    await eventually(() => (adapter.sessions.includes('closeSession s3') ? true : undefined), { timeoutMs: 15_000, what: 'the undelivered close, retried' });
    reload(chain(adapter.name, { v: 3 }, 'closed'));
    await eventually(() => (adapter.sessions.includes('createSession s4 {"v":3}') ? true : undefined), { timeoutMs: 15_000, what: 'a session after the adapter came back' });
    expect((await create('reuse')).status).toBe(200);
    closed = true;
    await system.close();
    expect(adapter.sessions.at(-1)).toBe('closeSession s4');
    expect(adapter.sessions.filter((e) => e === 'closeSession s3')).toHaveLength(1);
  });

  it('sends Contract-Version and User-Agent with every adapter.v1 call', () => {
    const methods = new Set(adapter.received.map((r) => r.method));
    expect([...methods].sort()).toEqual(['closeSession', 'createSession', 'handleCheck', 'info', 'validate']);
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
    system = await startEnforcementSystem(chain('nobody-yet', { v: 0 }, 'closed'), { ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100', ENFORCEMENT_RETRY_BASE_MS: '200' });
    const adapter = new TestAdapter(nc, system.namespace, uniqueName('probe-'));
    adapter.start();
    replaceFile(system.configFile, chain(adapter.name, { v: 1 }, 'closed'));
    await eventually(() => (adapter.sessions.length === 1 ? true : undefined), { timeoutMs: 15_000, what: 'the first session' });

    adapter.stop();
    await nc.flush();
    await system.stopService();
    expect(adapter.sessions).toEqual(['createSession s1 {"v":1}']);

    adapter.start();
    await nc.flush();
    await system.startService();
    await eventually(() => (adapter.sessions.includes('closeSession s1') ? true : undefined), { timeoutMs: 40_000, what: 'the close missed at shutdown' });
    expect(adapter.sessions).toContain('createSession s2 {"v":1}');
    expect(adapter.sessions.filter((e) => e === 'closeSession s1')).toHaveLength(1);
  }, 120_000);
});

/**
 * The reference budget adapter (apps/budget-adapter, from its main.ts, its own Postgres schema)
 * behind an adapter filter with the check, quota and report templates. Budgets in host-hours:
 * acme 30, bravo 15, charlie 20, delta 25; every lease here is 1 host for exactly 10 hours.
 */
describe('adapter filters: the budget adapter', () => {
  let system: EnforcementSystem;
  let budget: ServiceProcess;
  const name = uniqueName('budget-');
  const schema = uniqueName('it_budget_');
  let n = 0;
  const base = new Date(Date.now() + 3_600_000);
  base.setUTCSeconds(0, 0);
  const at = (hours: number) => new Date(base.getTime() + hours * 3_600_000);
  const LEASE = { name: 'ten', startDate: at(0).toISOString(), endDate: at(10).toISOString(), reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }] };
  const create = (project: string) => system.call('POST', `/v1/projects/${project}/leases?leaseId=b-${++n}`, LEASE);
  const chain = (adapter: string) => `
enabled_filters: [MaxLeaseDuration, budget]
filters:
  MaxLeaseDuration: { max_lease_duration: 604800 }
  budget:
    adapter: ${adapter}
    params: { budgets: { acme: { "physical:host": 30 }, bravo: { "physical:host": 15 }, charlie: { "physical:host": 20 }, delta: { "physical:host": 25 } } }
    templates: [check, quota, report]
    failure_policy: closed
    timeout_ms: 2000
`;

  beforeAll(async () => {
    // As above: the service first (its namespace), then the adapter on it, then the chain.
    system = await startEnforcementSystem(chain('nobody-yet'), { ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100' });
    const port = await freePort();
    budget = startServiceProcess('budget-adapter', {
      NATS_NAMESPACE: system.namespace,
      DATABASE_SCHEMA: schema,
      PORT: String(port),
      ADAPTER_NAME: name,
      // Check results are not reused here, so each check sees the budget as it is.
      BUDGET_CHECK_VALID_DURATION_MS: '0',
    });
    await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined), { timeoutMs: 30_000, intervalMs: 200, what: 'budget-adapter ready' });
    replaceFile(system.configFile, chain(name));
    // A project without a budget passes once the handler has its session.
    await eventually(async () => ((await create('unlimited')).status === 200 ? true : undefined), { timeoutMs: 20_000, intervalMs: 200, what: 'the budget handler in force' });
  }, 90_000);

  afterAll(async () => {
    await system?.close();
    await budget?.stop();
    await removeTestResources({ schema });
  });

  it("admits leases until the budget is spent, then denies with the adapter's message", async () => {
    for (let i = 0; i < 3; i++) expect((await create('acme')).status).toBe(200);
    const refused = await create('acme');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Project acme has used its budget of 30 physical:host hours.');
    expect(refused.body.error.details[0].metadata.filter).toBe('budget');
  });

  it('denies a lease larger than what is left, saying what is left', async () => {
    expect((await create('bravo')).status).toBe(200);
    const refused = await create('bravo');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `Quota from adapter ${name} refused: 10 physical:host resource-hours asked, 0 granted (Project bravo has 5 of its 15 physical:host hours left.).`,
    );
  });

  it('ending a lease that has not started refunds it in full', async () => {
    const first = `b-${n - 5}`; // the first acme lease
    expect((await system.call('GET', `/v1/projects/acme/leases/${first}`)).body.status).toBe('PENDING');
    expect((await system.call('POST', `/v1/projects/acme/leases/${first}:end`)).status).toBe(200);
    expect((await create('acme')).status).toBe(200);
    expect((await create('acme')).status).toBe(403);
  });

  it('a retried quota request (Blazar asking twice about one lease) is charged once', async () => {
    const naive = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
    const blazarLease = { name: 'retried', start_date: naive(at(0)), end_date: naive(at(10)), reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }] };
    const body = { context: { user_id: 'u-1', project_id: 'charlie', region_name: 'RegionOne' }, lease: blazarLease };
    for (let i = 0; i < 2; i++) expect((await system.call('POST', '/v1/blazar/check-create', body, { 'x-auth-token': BLAZAR_TOKEN })).status).toBe(204);
    // 20 host-hours: charged once, 10 are left for exactly one more lease.
    expect((await create('charlie')).status).toBe(200);
    expect((await create('charlie')).status).toBe(403);
  });

  it('an update that shrinks a lease returns what it no longer holds', async () => {
    expect((await create('delta')).status).toBe(200);
    const shrunk = await system.call('PATCH', `/v1/projects/delta/leases/b-${n}`, { endDate: at(5).toISOString() });
    expect(shrunk.status).toBe(200);
    // 5 + 10 + 10 = 25: both fit only because the shrink gave 5 host-hours back.
    expect((await create('delta')).status).toBe(200);
    expect((await create('delta')).status).toBe(200);
    expect((await create('delta')).status).toBe(403);
  });
});
