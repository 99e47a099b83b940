import { eventually } from '@rollout/testing/kit';
import { TIMEOUT_MS, probeSystem } from '../../test/adapter-double';
import { sample } from '../../test/enforcement-system';

describe('adapter filters: given an open session, the check cache and the denials', () => {
  const system = probeSystem();
  const lookups = async (result: 'hit' | 'miss') =>
    sample(await system.metrics(), 'enforcement_adapter_check_cache_total', {
      handler: 'probe',
      result,
    });

  it('reuses a cached check result for the same lease, sending the session id', async () => {
    const hits = await lookups('hit');
    for (let i = 0; i < 4; i++) expect((await system.ask('reuse')).status).toBe(204);
    expect(system.adapter.checks('reuse')).toBe(1);
    expect(await lookups('hit')).toBe(hits + 3);
    const check = system.adapter.received.find((r) => r.method === 'handleCheck')!;
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
    const checks = system.adapter.checks('reuse');
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await system.create('reuse');
      expect(created.status).toBe(200);
      ids.push(created.id);
    }
    expect(system.adapter.checks('reuse')).toBe(checks + 2);
    const [first, second] = system.adapter.received
      .filter((r) => r.method === 'handleCheck')
      .slice(-2)
      .map((r) => (r.body.instance as { lease: { id: string; apiId: string } }).lease);
    expect([first.apiId, second.apiId]).toEqual(ids);
    expect(first.id).not.toBe(second.id);
  });

  it('uses a result validUseCount times, then asks again', async () => {
    for (let i = 0; i < 4; i++) expect((await system.ask('uses')).status).toBe(204);
    // ask, reuse, reuse, ask
    expect(system.adapter.checks('uses')).toBe(2);
  });

  it('asks again once validDuration has passed', async () => {
    expect((await system.ask('brief')).status).toBe(204);
    expect(system.adapter.checks('brief')).toBe(1);
    // Far fewer than 1000 uses: only the 300 ms validity can make it ask again.
    await eventually(
      async () =>
        (await system.ask('brief')).status === 204 && system.adapter.checks('brief') === 2
          ? true
          : undefined,
      { timeoutMs: 10_000, intervalMs: 100, what: 'a second check' },
    );
  });

  it("denies with the adapter's message, and caches the denial for that lease", async () => {
    const refused = await system.create('blocked');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Project blocked is not in the CMDB.');
    expect(refused.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_DENIED',
      metadata: { filter: 'probe' },
    });
    for (let i = 0; i < 2; i++) {
      const again = await system.ask('blocked');
      expect(again.status).toBe(403);
      expect(again.body).toEqual({ message: 'Project blocked is not in the CMDB.' });
    }
    expect(system.adapter.checks('blocked')).toBe(2);
  });

  it('a slow adapter with failure_policy closed is a refusal, without waiting for its answer', async () => {
    const refused = await system.create('slow');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Enforcement filter probe failed.');
    expect(refused.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_FILTER_FAILED',
      metadata: { filter: 'probe' },
    });
    expect(system.adapter.pending).toBe(1);
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/${refused.id}/decisions`))
      .body.decisions;
    expect(decisions[0].steps[1]).toEqual({
      filter: 'probe',
      mode: 'ENFORCE',
      result: 'ERROR',
      message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.`,
    });
    system.adapter.release();
  });
});
