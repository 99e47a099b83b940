import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, portOpen } from './helpers';

export interface NatsServer {
  readonly url: string;
  /** Permission violations are logged there. */
  readonly log: () => string;
  stop(): Promise<void>;
}

/** Stop it to remove its store. */
export async function startNatsServer(extraConfig = ''): Promise<NatsServer> {
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'nats-server-'));
  const config = join(root, 'nats.conf');
  writeFileSync(
    config,
    [
      `listen: 127.0.0.1:${port}`,
      `jetstream { store_dir: "${join(root, 'store')}" }`,
      extraConfig,
    ].join('\n'),
  );
  const child: ChildProcess = spawn('nats-server', ['-c', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () =>
        child.exitCode !== null
          ? Promise.reject(new Error(output))
          : (await portOpen(port))
            ? true
            : undefined,
      { what: 'nats-server listening' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `nats://127.0.0.1:${port}`, log: () => output, stop };
}
