import { ADAPTER_V1 } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { TIMEOUT_MS, chain, probeSystem } from '../../test/adapter-double';
import { sample } from '../../test/enforcement-system';

describe('adapter filters: sessions across reloads, a lost session and a down adapter, with the failure policy', () => {
  const system = probeSystem();

  it('opens a session with Validate before CreateSession, carrying the params', () => {
    const lifecycle = system.adapter.received.map((r) => r.method);
    expect(lifecycle.slice(0, 3)).toEqual(['info', 'validate', 'createSession']);
    expect(system.adapter.received[1].body).toMatchObject({ adapterConfig: { v: 1 } });
    expect(system.adapter.sessions).toEqual(['createSession s1 {"v":1}']);
  });

  it('a reload with a changed handler opens a new session, then closes the old one', async () => {
    system.reload(chain(system.adapter.name, { v: 2 }, 'open'));
    await eventually(() => (system.adapter.sessions.length === 3 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the new session and the close of the old',
    });
    expect(system.adapter.sessions).toEqual([
      'createSession s1 {"v":1}',
      'createSession s2 {"v":2}',
      'closeSession s1',
    ]);
    // The new session starts with an empty cache, and its requests carry its id.
    const checks = system.adapter.checks('reuse');
    expect((await system.ask('reuse')).status).toBe(204);
    expect(system.adapter.received.at(-1)!.body).toMatchObject({ sessionId: 's2' });
    expect(system.adapter.checks('reuse')).toBe(checks + 1);
  });

  it('a slow adapter with failure_policy open lets the lease through as fail-open', async () => {
    const allowed = await system.create('slow');
    expect(allowed.status).toBe(200);
    expect(system.adapter.pending).toBe(1);
    const decisions = (await system.call('GET', `/v1/projects/slow/leases/${allowed.id}/decisions`))
      .body.decisions;
    expect(decisions[0]).toMatchObject({ result: 'ALLOWED' });
    expect(decisions[0].steps[1]).toEqual({
      filter: 'probe',
      mode: 'ENFORCE',
      result: 'FAIL_OPEN',
      message: `Enforcement filter probe did not answer within ${TIMEOUT_MS} ms.`,
    });
    system.adapter.release();
  });

  it('an adapter that lost its session: that call follows the failure policy, the next one opens a new session', async () => {
    const opened = system.adapter.sessions.length;
    system.adapter.forget();
    const allowed = await system.create('amnesia');
    expect(allowed.status).toBe(200);
    const decisions = (
      await system.call('GET', `/v1/projects/amnesia/leases/${allowed.id}/decisions`)
    ).body.decisions;
    expect(decisions[0].steps[1]).toMatchObject({
      filter: 'probe',
      result: 'FAIL_OPEN',
      message: `Adapter ${system.adapter.name} no longer knows session s2.`,
    });

    expect((await system.create('amnesia')).status).toBe(200);
    expect(system.adapter.sessions.slice(opened)).toEqual(['createSession s3 {"v":2}']);
    expect(system.adapter.received.at(-1)).toMatchObject({
      method: 'handleCheck',
      body: { sessionId: 's3' },
    });
  });

  it('an adapter that is down follows the failure policy: open lets through, closed refuses', async () => {
    system.adapter.stop();
    const errors = () =>
      system.metrics().then((m) =>
        sample(m, 'enforcement_adapter_call_errors_total', {
          adapter: system.adapter.name,
          method: 'handleCheck',
          reason: 'down',
        }),
      );
    const before = await errors();
    const open = await system.create('down');
    expect(open.status).toBe(200);
    const decisions = (await system.call('GET', `/v1/projects/down/leases/${open.id}/decisions`))
      .body.decisions;
    expect(decisions[0].steps[1]).toMatchObject({
      filter: 'probe',
      result: 'FAIL_OPEN',
      message: `Adapter ${system.adapter.name} is not running (nobody answers handleCheck).`,
    });
    expect(await errors()).toBe(before + 1);

    system.reload(chain(system.adapter.name, { v: 2 }, 'closed'));
    await eventually(
      async () => ((await system.create('down')).status === 403 ? true : undefined),
      {
        timeoutMs: 15_000,
        intervalMs: 100,
        what: 'the closed policy in force',
      },
    );
    const refused = await system.create('down');
    expect(refused.body.error.message).toBe('Enforcement filter probe failed.');
  });

  it('keeps the old session while the adapter is down, opens the replacement once it is back, then closes the old one; and all its sessions when it stops', async () => {
    // The reload of the previous test changed the handler while the adapter was down: its
    // replacement could not open, so session s3 was kept, not closed.
    expect(system.adapter.sessions).not.toContain('closeSession s3');
    const opened = system.adapter.sessions.length;
    system.adapter.start();
    await eventually(
      () => (system.adapter.sessions.includes('closeSession s3') ? true : undefined),
      { timeoutMs: 15_000, what: 'the replacement opened, then the old session closed' },
    );
    expect(system.adapter.sessions.slice(opened)).toEqual([
      'createSession s4 {"v":2}',
      'closeSession s3',
    ]);
    system.reload(chain(system.adapter.name, { v: 3 }, 'closed'));
    await eventually(
      () => (system.adapter.sessions.includes('createSession s5 {"v":3}') ? true : undefined),
      { timeoutMs: 15_000, what: 'a session after the adapter came back' },
    );
    expect((await system.create('reuse')).status).toBe(200);
    await system.close();
    expect(system.adapter.sessions.at(-1)).toBe('closeSession s5');
    expect(system.adapter.sessions.filter((e) => e === 'closeSession s3')).toHaveLength(1);
  });

  it('sends Contract-Version and User-Agent with every adapter.v1 call', () => {
    const methods = new Set(system.adapter.received.map((r) => r.method));
    expect([...methods].sort()).toEqual([
      'closeSession',
      'createSession',
      'handleCheck',
      'info',
      'validate',
    ]);
    for (const call of system.adapter.received) {
      expect(call.contractVersion).toBe(`adapter.v1/${ADAPTER_V1.version}`);
      expect(call.userAgent).toMatch(/^enforcement-service\/\d+\.\d+\.\d+/);
    }
  });
});

describe('adapter filters: a CloseSession the adapter missed at shutdown', () => {
  const system = probeSystem({ ENFORCEMENT_RETRY_BASE_MS: '200' });

  it('is sent by the restarted service once the adapter is back, so the session does not stay open', async () => {
    const { adapter, nc } = system;
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
