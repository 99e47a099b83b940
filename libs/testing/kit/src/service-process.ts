import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_NATS_URL, TEST_POSTGRES_URL } from './servers';

/** The repository root, from libs/testing/kit/src. */
export const REPO_ROOT = join(__dirname, '..', '..', '..', '..');

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** SIGTERM (graceful) or SIGKILL, then waits for the exit. Harmless once exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/**
 * Runs a service from its own `apps/<app>/src/main.ts` in a child process, exactly as it boots
 * in production, so an integration test of two apps never imports one app into another: first
 * the provisioning step for its streams (see provisioned-main.ts), then the service.
 * `env` is added to the test's environment; pass NATS_NAMESPACE and DATABASE_SCHEMA to isolate.
 */
export function startServiceProcess(app: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(
    process.execPath,
    [
      '-r',
      'reflect-metadata',
      '-r',
      '@swc-node/register',
      join(__dirname, 'provisioned-main.ts'),
      app,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NATS_URL: TEST_NATS_URL,
        DATABASE_URL: TEST_POSTGRES_URL,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Drops a test's Postgres schema and deletes its NATS namespace's streams and buckets. */
export async function removeTestResources({
  schema,
  namespace,
}: {
  schema?: string;
  namespace?: string;
}): Promise<void> {
  if (schema) {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  }
  if (namespace) {
    const { connect } = await import('nats');
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const jsm = await nc.jetstreamManager();
      for await (const stream of jsm.streams.names()) {
        // KV buckets are streams named KV_<bucket>.
        if (stream.startsWith(`${namespace}_`) || stream.startsWith(`KV_${namespace}_`))
          await jsm.streams.delete(stream);
      }
    } finally {
      await nc.close();
    }
  }
}
