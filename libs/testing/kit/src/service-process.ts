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

/** The services whose streams, consumers and buckets the provisioning step creates. */
const JETSTREAM_SERVICES = [
  'experiment-service',
  'evaluator',
  'inspection-rules-service',
  'enforcement-service',
];

/**
 * Runs a service from its own `apps/<app>/src/main.ts` in a child process, exactly as it boots
 * in production, so an integration test of two apps never imports one app into another. Before
 * it, in the same child (a shell that then becomes the service), the provisioning step
 * (tools/provision) creates what the service uses, with the service's env (NATS_NAMESPACE,
 * NATS_STREAM_REPLICAS, stream limits) and, on a server with users, as TEST_PROVISION_NATS_USER
 * and TEST_PROVISION_NATS_PASSWORD.
 * `env` is added to the test's environment; pass NATS_NAMESPACE and DATABASE_SCHEMA to isolate.
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
