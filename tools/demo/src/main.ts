/**
 * `npm run demo`, with `npm start` running (docs/importers.md, "The demo"). GATEWAY_URL, NATS_URL,
 * NATS_NAMESPACE, TOKEN and NATS_USER/NATS_PASSWORD default to what `npm start` wrote under tmp/;
 * DEMO_SECONDS (60), DEMO_RATE (100 events/s).
 */
import { readLocalInstance } from '@rollout/platform/config';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { DemoError, runDemo } from './demo';

const ROOT = join(
  __dirname,
  ...(extname(__filename) === '.js' ? ['..', '..', '..', '..'] : ['..', '..', '..']),
);
const DEV_TOKEN_FILE = join('tmp', 'dev-token');
const DEV_NATS_OPERATOR_FILE = join('tmp', 'dev-nats-operator.json');

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    fail(`${name} must be a positive integer (got "${raw}")`);
  return Number(raw);
}

function token(): string {
  if (process.env.TOKEN) return process.env.TOKEN;
  const file = join(ROOT, DEV_TOKEN_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  return fail(
    `no token: start the system with npm start (it writes ${DEV_TOKEN_FILE}), or set TOKEN`,
  );
}

function natsUser(): { user: string; password: string } | undefined {
  if (process.env.NATS_USER)
    return { user: process.env.NATS_USER, password: process.env.NATS_PASSWORD ?? '' };
  const file = join(ROOT, DEV_NATS_OPERATOR_FILE);
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { user: string; password: string })
    : undefined;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'tools', 'traffic-importer', 'src', 'main.js')))
    fail('the build is missing: npm start builds it');
  const instance = readLocalInstance(ROOT);
  await runDemo({
    gateway: (
      process.env.GATEWAY_URL ||
      instance?.apiUrl ||
      `http://127.0.0.1:${process.env.GATEWAY_PORT || 3000}`
    ).replace(/\/$/, ''),
    token: token(),
    natsUrl: process.env.NATS_URL || instance?.natsUrl || 'nats://127.0.0.1:4222',
    natsUser: natsUser(),
    namespace: (process.env.NATS_NAMESPACE ?? instance?.namespace) || undefined,
    seconds: positiveInteger('DEMO_SECONDS', 60),
    ratePerSecond: positiveInteger('DEMO_RATE', 100),
    root: ROOT,
    say: (line) => process.stdout.write(`${line}\n`),
  });
}

// One line, never a stack: what went wrong is said in the error's message.
main().catch((error: unknown) =>
  fail(
    error instanceof DemoError
      ? error.message
      : error instanceof Error
        ? error.message.split('\n')[0]
        : String(error),
  ),
);
