/** `npm run teardown -- --namespace <prefix> --database <name>` (teardown.ts): DATABASE_URL as a superuser, NATS_USER a user that may delete streams. */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { readLocalInstance } from '@rollout/platform/config';
import { TeardownRefused, instanceToRemove, teardown } from './teardown';
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from './settings';

const ROOT = join(__dirname, '..', '..', '..');

function fail(line: string): never {
  process.stderr.write(`teardown: ${line}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let values: { namespace?: string; database?: string };
  try {
    ({ values } = parseArgs({
      options: { namespace: { type: 'string' }, database: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    return fail(`${(error as Error).message}; nothing was removed`);
  }
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const instance = instanceToRemove(values, databaseUrl, readLocalInstance(ROOT));
  const lines = await teardown(instance, {
    natsUrl: process.env.NATS_URL || DEFAULT_NATS_URL,
    databaseUrl,
    natsUser: process.env.NATS_USER
      ? { user: process.env.NATS_USER, password: process.env.NATS_PASSWORD ?? '' }
      : undefined,
  });
  for (const line of lines) process.stdout.write(`${line}\n`);
}

main().catch((error: unknown) =>
  fail(
    error instanceof TeardownRefused
      ? error.message
      : error instanceof Error
        ? error.message
        : String(error),
  ),
);
