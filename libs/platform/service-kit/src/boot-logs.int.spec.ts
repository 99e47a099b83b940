import { REPO_ROOT, TEST_NATS_URL, eventually, freePort } from '@rollout/testing/kit';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

/**
 * What a person reads after `npm start`: a healthy boot logs no error, and the probes a
 * launcher or kubelet sends every second (/readyz answers 503 while a service is starting, by
 * design) are not logged at all. The gateway here, from its own main.ts, at LOG_LEVEL=info.
 */
describe('the logs of a healthy boot', () => {
  let child: ChildProcess;
  let stdout = '';

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('hold no error line and no line about a probe', async () => {
    const port = await freePort();
    child = spawn(
      process.execPath,
      ['-r', 'reflect-metadata', '-r', '@swc-node/register', 'apps/gateway/src/main.ts'],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          NATS_URL: TEST_NATS_URL,
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'info',
          CONSOLE_DIR: join(REPO_ROOT, 'dist', 'apps', 'console'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    await eventually(
      async () => ((await fetch(`${base}/readyz`).catch(() => undefined))?.ok ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100, what: 'the gateway ready' },
    );
    for (const probe of ['/readyz', '/healthz', '/metrics', '/readyz?verbose=1'])
      expect((await fetch(`${base}${probe}`)).status).toBe(200);
    // A request that is not a probe is logged, so the logs are on.
    expect((await fetch(`${base}/v1/services`)).status).toBe(401);
    await eventually(async () => (stdout.includes('"url":"/v1/services"') ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'the request logged',
    });

    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string; req?: { url: string } });
    expect(lines.filter((line) => ['error', 'fatal'].includes(line.level))).toEqual([]);
    expect(
      lines
        .map((line) => line.req?.url)
        .filter((url) => /^\/(readyz|healthz|metrics)/.test(url ?? '')),
    ).toEqual([]);
    expect(lines.find((line) => line.req?.url === '/v1/services')?.level).toBe('info');
  }, 60_000);
});
