import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export function gatewayOpenApi(root: string): Record<string, unknown> {
  const run = spawnSync(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'openapi-child.ts'), root],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_ENV: 'development' },
    },
  );
  if (run.status !== 0) {
    throw new Error(
      `could not build the gateway's OpenAPI document:\n${run.stderr || run.error?.message}`,
    );
  }
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
