import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_NATS_URL, TEST_POSTGRES_URL } from './servers';

export const REPO_ROOT = join(__dirname, '..', '..', '..', '..');

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Harmless once exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

const JETSTREAM_SERVICES = [
  'experiment-service',
  'evaluator',
  'inspection-rules-service',
  'enforcement-service',
];

/**
 * From its own main.ts in a child process, as in production, so a test of two apps never
 * imports one into another. Pass NATS_NAMESPACE and DATABASE_SCHEMA in `env` to isolate.
 */
export function startServiceProcess(app: string, env: Record<string, string>): ServiceProcess {
  const node = `"${process.execPath}" -r reflect-metadata -r @swc-node/register`;
  const main = `${node} "${join(REPO_ROOT, 'apps', app, 'src', 'main.ts')}"`;
  const provision =
    `NATS_USER="$TEST_PROVISION_NATS_USER" NATS_PASSWORD="$TEST_PROVISION_NATS_PASSWORD" ` +
    `BUS_PROVISION_SERVICES=${app} ${node} "${join(REPO_ROOT, 'tools', 'provision', 'src', 'main.ts')}" >/dev/null`;
  const child = spawn(
    '/bin/sh',
    ['-c', JETSTREAM_SERVICES.includes(app) ? `${provision} && exec ${main}` : `exec ${main}`],
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
        if (stream.startsWith(`${namespace}_`) || stream.startsWith(`KV_${namespace}_`))
          await jsm.streams.delete(stream);
      }
    } finally {
      await nc.close();
    }
  }
}
