import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export async function startParent(
  kind: 'nats' | 'postgres',
  port: number,
): Promise<{ parent: ChildProcess; pids: number[] }> {
  const parent = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'dependency-parent.ts'), kind, String(port)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const pids = await new Promise<number[]>((resolve, reject) => {
    parent.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { pids: number[] }).pids);
    });
    parent.once('exit', (code) =>
      reject(new Error(`the parent exited with code ${code} before starting ${kind}`)),
    );
  });
  return { parent, pids };
}
