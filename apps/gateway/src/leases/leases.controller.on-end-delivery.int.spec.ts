import { eventually } from '@rollout/testing/kit';
import { sample } from '../../test/enforcement-system';
import { MAX_ATTEMPTS, hooksSystem } from '../../test/blazar-policy-service';

/**
 * on_end delivered at least once from the outbox to a policy service started here: retried with
 * back-off, across a restart, given up after its bound.
 */
describe('Blazar hooks: given a policy service that fails on-end, the outbox delivery', () => {
  const system = hooksSystem();
  const deliveries = async (outcome: 'delivered' | 'retry' | 'abandoned') =>
    sample(await system.metrics(), 'enforcement_on_end_deliveries_total', {
      filter: 'ExternalService',
      outcome,
    });
  const pending = async () =>
    sample(await system.metrics(), 'enforcement_on_end_outbox_pending', {});

  it('retries an on_end the service failed, with back-off, until it is acknowledged; every try names the lease', async () => {
    system.policy.onEnd.set('flaky', { failures: 2 });
    const [retries, delivered] = [await deliveries('retry'), await deliveries('delivered')];
    const created = await system.create('flaky');
    expect(created.status).toBe(200);
    const ended = await system.call('POST', `/v1/projects/flaky/leases/${created.id}:end`);
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe('TERMINATED');
    await eventually(
      async () => ((await deliveries('delivered')) === delivered + 1 ? true : undefined),
      { timeoutMs: 15_000, intervalMs: 100, what: 'the on_end acknowledged' },
    );
    expect(await deliveries('retry')).toBe(retries + 2);
    const sent = system.policy.onEnds('flaky');
    expect(sent).toHaveLength(3);
    expect(sent.map((r) => r.body.lease.id)).toEqual([created.id, created.id, created.id]);
    const decisions = (
      await system.call('GET', `/v1/projects/flaky/leases/${created.id}/decisions`)
    ).body.decisions;
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
    system.policy.onEnd.set('dead', { failures: Number.POSITIVE_INFINITY });
    const abandoned = await deliveries('abandoned');
    const created = await system.create('dead');
    expect(created.status).toBe(200);
    expect((await system.call('DELETE', `/v1/projects/dead/leases/${created.id}`)).status).toBe(
      200,
    );
    await eventually(
      async () => ((await deliveries('abandoned')) === abandoned + 1 ? true : undefined),
      { timeoutMs: 20_000, intervalMs: 100, what: 'the on_end given up' },
    );
    expect(system.policy.onEnds('dead')).toHaveLength(MAX_ATTEMPTS);
  });

  it('delivers an on_end still owed after a restart', async () => {
    system.policy.onEnd.set('restart', { failures: Number.POSITIVE_INFINITY });
    const created = await system.create('restart');
    expect(created.status).toBe(200);
    expect(
      (await system.call('POST', `/v1/projects/restart/leases/${created.id}:end`)).status,
    ).toBe(200);
    expect(system.policy.onEnds('restart').length).toBeGreaterThanOrEqual(1);
    await system.stopService();
    const before = system.policy.onEnds('restart').length;
    expect(before).toBeLessThan(MAX_ATTEMPTS);
    system.policy.onEnd.set('restart', { failures: 0 });
    await system.startService();
    await eventually(
      () => (system.policy.onEnds('restart').length === before + 1 ? true : undefined),
      {
        timeoutMs: 15_000,
        intervalMs: 100,
        what: 'the on_end sent by the new process',
      },
    );
    expect(system.policy.onEnds('restart').at(-1)!.body.lease).toMatchObject({
      id: created.id,
      name: 'hooks',
    });
    await eventually(async () => ((await pending()) === 0 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the outbox empty',
    });
  }, 120_000);
});
