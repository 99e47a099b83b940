import { eventually } from '@rollout/testing/kit';
import { enforcementServiceSystem } from '../../test/enforcement-service-system';

/**
 * A reload that changes a handler while its adapter is unreachable is make before break too:
 * the old session is not closed while the replacement cannot open, and once the adapter is back
 * the replacement opens (tried again every 5 s, without waiting for a request) before the old
 * session is closed.
 */
describe('enforcement-service chain reload while the adapter is unreachable', () => {
  const system = enforcementServiceSystem({
    probe: 'timeout_ms: 1000',
    // Warnings: the replacement that could not open is what the test waits for.
    env: { LOG_LEVEL: 'warn' },
  });
  const { sessions } = system;

  it('keeps the old session until the replacement opens, then closes it', async () => {
    expect(sessions).toEqual(['create s1 {"version":1}']);

    await system.adapterDown();
    system.writeChain(2);
    system.service.child.kill('SIGHUP');
    await eventually(
      () =>
        system.service.stdout().includes('adapter handler gets no requests') ? true : undefined,
      { timeoutMs: 15_000, what: 'the replacement refused while the adapter is down' },
    );

    await system.adapterUp();
    await eventually(() => (sessions.length >= 3 ? true : undefined), {
      timeoutMs: 20_000,
      what: 'the replacement opened and the old session closed',
    });
    expect(sessions).toEqual(['create s1 {"version":1}', 'create s2 {"version":2}', 'close s1']);
  });

  it('closes the replacement, and only it, when it stops', async () => {
    await system.service.stop();
    expect(sessions.slice(3)).toEqual(['close s2']);
  });
});
