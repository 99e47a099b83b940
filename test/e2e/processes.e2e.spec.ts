import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { eventually } from '@rollout/testing/kit';
import { DIST, removeRun, isolatedSettings, processesOf } from './support';

const LAUNCHER = join(DIST, 'tools', 'launcher', 'src', 'main.js');

/** `npm start` as a user runs it: a banner when ready, and nothing left behind when it ends. */
describe('the launcher process', () => {
  const databases: string[] = [];

  afterAll(async () => {
    for (const database of databases) await removeRun(database);
  });

  async function startLauncher() {
    const run = await isolatedSettings();
    databases.push(run.database);
    const child = spawn(process.execPath, [LAUNCHER], {
      env: { ...process.env, ...run.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.resume();
    await eventually(() => (stdout.includes('Ctrl-C stops everything') ? true : undefined), {
      timeoutMs: 90_000,
      what: 'the launcher banner',
    });
    return { child, stdout, run };
  }

  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');

  it('prints where the gateway and docs are, and stops everything on Ctrl-C', async () => {
    const { child, stdout, run } = await startLauncher();
    expect(stdout).toContain(`Docs:  http://127.0.0.1:${run.env.GATEWAY_PORT}/docs`);
    expect(processesOf(run.namespace)).toHaveLength(6); // the launcher and five services
    const token = /Token: (\S+)/.exec(stdout)![1];
    const response = await fetch(`http://127.0.0.1:${run.env.GATEWAY_PORT}/v1/services`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);

    child.kill('SIGINT');
    await exited(child);
    expect(child.exitCode).toBe(0);
    expect(processesOf(run.namespace)).toEqual([]);
  }, 120_000);

  it('leaves no orphan services when the launcher itself is killed', async () => {
    const { child, run } = await startLauncher();
    child.kill('SIGKILL');
    await exited(child);
    await eventually(() => (processesOf(run.namespace).length === 0 ? true : undefined), {
      timeoutMs: 20_000,
      what: 'every service gone after the launcher was killed',
    });
  }, 120_000);
});

describe('a service with a bad setting', () => {
  it('exits at once with one line naming the variable', () => {
    const run = spawnSync(process.execPath, [join(DIST, 'apps', 'evaluator', 'src', 'main.js')], {
      env: { ...process.env, NATS_URL: 'notaurl' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'evaluator: invalid configuration: NATS_URL must be a URL like nats://127.0.0.1:4222 (got "notaurl")',
    ]);
  });

  it('fails to start with one line when NATS cannot be reached', () => {
    const run = spawnSync(process.execPath, [join(DIST, 'apps', 'gateway', 'src', 'main.js')], {
      env: { ...process.env, NATS_URL: 'nats://127.0.0.1:1', PORT: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toMatch(
      /^gateway: failed to start: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: /,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
