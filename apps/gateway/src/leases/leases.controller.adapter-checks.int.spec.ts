import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import {
  BLAZAR_LEASE,
  LEASE,
  TIMEOUT_MS,
  TestAdapter,
  startProbeSystem,
} from '../../test/adapter-double';
import { BLAZAR_TOKEN, EnforcementSystem, sample } from '../../test/enforcement-system';

describe('adapter filters: given an open session, the check cache and the denials', () => {
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
  const lookups = async (result: 'hit' | 'miss') =>
    sample(await system.metrics(), 'enforcement_adapter_check_cache_total', {
      handler: 'probe',
      result,
    });

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    ({ system, adapter } = await startProbeSystem(nc));
  }, 60_000);

  afterAll(async () => {
    adapter?.release();
    await system?.close();
    await nc?.close();
  });

  it('reuses a cached check result for the same lease, sending the session id', async () => {
    const hits = await lookups('hit');
    for (let i = 0; i < 4; i++) expect((await ask('reuse')).status).toBe(204);
    expect(adapter.checks('reuse')).toBe(1);
    expect(await lookups('hit')).toBe(hits + 3);
    const check = adapter.received.find((r) => r.method === 'handleCheck')!;
    expect(check.body).toMatchObject({
      sessionId: 's1',
      instance: {
        hook: 'create',
        context: { projectId: 'reuse', userId: 'alice' },
        lease: { name: 'probe', id: 'blazar:probe' },
      },
    });
  });

  it('never reuses a result for another lease, however alike, and tells the adapter the id users see', async () => {
    const checks = adapter.checks('reuse');
    for (let i = 0; i < 2; i++) expect((await create('reuse')).status).toBe(200);
    expect(adapter.checks('reuse')).toBe(checks + 2);
    const [first, second] = adapter.received
      .filter((r) => r.method === 'handleCheck')
      .slice(-2)
      .map((r) => (r.body.instance as { lease: { id: string; apiId: string } }).lease);
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
    await eventually(
      async () =>
        (await ask('brief')).status === 204 && adapter.checks('brief') === 2 ? true : undefined,
      { timeoutMs: 10_000, intervalMs: 100, what: 'a second check' },
    );
  });

  it("denies with the adapter's message, and caches the denial for that lease", async () => {
    const refused = await create('blocked');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Project blocked is not in the CMDB.');
    expect(refused.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_DENIED',
      metadata: { filter: 'probe' },
    });
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
    expect(refused.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_FILTER_FAILED',
      metadata: { filter: 'probe' },
    });
    expect(adapter.pending).toBe(1);
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/a-${n}/decisions`)).body
      .decisions;
    expect(decisions[0].steps[1]).toEqual({
      filter: 'probe',
      mode: 'ENFORCE',
      result: 'ERROR',
      message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.`,
    });
    adapter.release();
  });
});
