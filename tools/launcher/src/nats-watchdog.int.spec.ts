import { TEST_NATS_URL, eventually, freePort } from '@rollout/testing/kit';
import { existsSync } from 'node:fs';
import { connect } from 'nats';
import { startParent } from './__fixtures__/spawn-parent';
import { inboxPrefixOf } from '@rollout/platform/nats';
import { busSetup } from './bus';
import { ensureNats } from './nats';
import { LaunchError, StartedDependency, isAlive, portAnswers } from './processes';

/** NATS as `npm start` handles it: used when it runs, else nats-server started under a watchdog. */
describe('NATS for the launcher', () => {
  const started: StartedDependency[] = [];
  afterEach(async () => {
    for (const dependency of started.splice(0)) await dependency.stop();
  });

  function capture() {
    const lines: string[] = [];
    return { lines, log: (line: string) => lines.push(line) };
  }

  it('uses the NATS server that already runs, and starts nothing', async () => {
    const { lines, log } = capture();
    expect(await ensureNats(TEST_NATS_URL, { log, stopTimeoutMs: 5_000 })).toBeUndefined();
    expect(lines).toEqual([`NATS: using the server at ${TEST_NATS_URL}`]);
  });

  it('starts nats-server with JetStream where nothing answers, and stop() removes it and its store', async () => {
    const port = await freePort();
    const { lines, log } = capture();
    const nats = await ensureNats(`nats://127.0.0.1:${port}`, { log, stopTimeoutMs: 5_000 });
    expect(nats).toBeDefined();
    started.push(nats!);
    const store = /store in (\S+)\)/.exec(lines.join('\n'))![1];
    const pids = nats!.pids();
    expect(pids).toHaveLength(2); // the watchdog and nats-server

    const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
    try {
      const jsm = await nc.jetstreamManager();
      expect((await jsm.getAccountInfo()).limits).toBeDefined(); // JetStream is on
    } finally {
      await nc.close();
    }

    await nats!.stop();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(nats!.pids()).toEqual([]);
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
    expect(existsSync(store)).toBe(false);
    await nats!.stop(); // a second stop is harmless
  }, 30_000);

  it('starts nats-server with a user per service: each connects as itself with its permissions, nobody without credentials', async () => {
    const port = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const bus = busSetup({});
    const nats = await ensureNats(url, {
      log: () => undefined,
      stopTimeoutMs: 5_000,
      authorization: bus.natsAuthorization,
    });
    started.push(nats!);
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization/i);
    const gatewayEnv = bus.serviceEnv('gateway', true);
    const gateway = await connect({
      servers: url,
      user: gatewayEnv.NATS_USER,
      pass: gatewayEnv.NATS_PASSWORD,
      inboxPrefix: inboxPrefixOf(gatewayEnv.NATS_USER),
    });
    const operator = await connect({
      servers: url,
      user: bus.operator.user,
      pass: bus.operator.password,
    });
    try {
      // The gateway may call a service but not publish traffic; the operator may do anything.
      await expect(
        gateway.request('traffic.v1.acme.global.p', '{}', { timeout: 2_000 }),
      ).rejects.toThrow(/Permissions Violation/);
      await expect(
        gateway.request('experiment.v1.policies.get', '{}', { timeout: 2_000 }),
      ).rejects.toMatchObject({ code: '503' }); // no responders: allowed through, nobody serves it here
      expect((await (await operator.jetstreamManager()).getAccountInfo()).limits).toBeDefined();
    } finally {
      await gateway.close();
      await operator.close();
    }
  }, 30_000);

  it('leaves no nats-server behind when the process that started it is SIGKILLed', async () => {
    const port = await freePort();
    const { parent, pids } = await startParent('nats', port);
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    expect(await portAnswers('127.0.0.1', port)).toBe(true);

    parent.kill('SIGKILL');

    await eventually(() => (pids.some(isAlive) ? undefined : true), {
      timeoutMs: 10_000,
      what: 'the watchdog and nats-server gone after their parent was SIGKILLed',
    });
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
  }, 30_000);

  it('explains how to get nats-server when nothing answers and it is not installed', async () => {
    const port = await freePort();
    const attempt = ensureNats(`nats://127.0.0.1:${port}`, {
      log: () => undefined,
      stopTimeoutMs: 5_000,
      searchPath: '/nonexistent',
    });
    await expect(attempt).rejects.toThrow(LaunchError);
    await expect(attempt).rejects.toThrow(/sudo apt-get install nats-server/);
  });

  it('does not start a server for a NATS_URL on another machine', async () => {
    // 192.0.2.0/24 is TEST-NET-1: nothing ever answers there.
    await expect(
      ensureNats('nats://192.0.2.1:4222', { log: () => undefined, stopTimeoutMs: 5_000 }),
    ).rejects.toThrow(
      /its host is not a loopback address, so the launcher does not start a server there/,
    );
  });
});
