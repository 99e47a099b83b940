/** `npm run teardown` (README, "A second instance"): an instance is named in full or nothing is removed. */
import { LocalInstance } from '@rollout/platform/config';
import { inboxPrefixOf } from '@rollout/platform/nats';
import { removeBus } from '@rollout/provision';
import { connect } from 'nats';
import { removeDatabase } from './postgres';
import { SettingsError, databaseName, redact, withDatabase } from './settings';

export interface TeardownRequest {
  /** NATS_NAMESPACE of the instance; '' names the instance without a namespace. */
  namespace?: string;
  database?: string;
}

export interface TeardownServers {
  natsUrl: string;
  databaseUrl: string;
  natsUser?: { user: string; password: string };
}

export class TeardownRefused extends Error {}

/** Never the instance this checkout's launcher runs now. */
export function instanceToRemove(
  request: TeardownRequest,
  databaseUrl: string,
  running: LocalInstance | undefined,
): { namespace: string; database: string } {
  const { namespace, database } = request;
  if (namespace === undefined || database === undefined)
    throw new TeardownRefused(
      "name the instance to remove: --namespace <NATS_NAMESPACE> ('' for none) and --database <name> (npm start prints both); nothing was removed",
    );
  try {
    databaseName(withDatabase(databaseUrl, database));
  } catch (error) {
    throw new TeardownRefused(
      `${error instanceof SettingsError ? error.message.replace('DATABASE_URL', '--database') : String(error)}; nothing was removed`,
    );
  }
  if (running && running.namespace === namespace && running.database === database)
    throw new TeardownRefused(
      `that instance is running (npm start, pid ${running.pid}): stop it first; nothing was removed`,
    );
  return { namespace, database };
}

export async function teardown(
  instance: { namespace: string; database: string },
  servers: TeardownServers,
): Promise<string[]> {
  const { natsUser } = servers;
  let nc;
  try {
    nc = await connect({
      servers: servers.natsUrl,
      ...(natsUser
        ? {
            user: natsUser.user,
            pass: natsUser.password,
            inboxPrefix: inboxPrefixOf(natsUser.user),
          }
        : {}),
    });
  } catch (error) {
    throw new TeardownRefused(
      `cannot reach NATS at ${redact(servers.natsUrl)}: ${error instanceof Error ? error.message : String(error)}; nothing was removed`,
    );
  }
  const where = instance.namespace ? `namespace "${instance.namespace}"` : 'no namespace';
  const lines: string[] = [];
  try {
    const bus = await removeBus(nc, instance.namespace || undefined);
    lines.push(
      bus.removed.length > 0
        ? `NATS ${redact(servers.natsUrl)}, ${where}: removed ${bus.removed.join(', ')}`
        : `NATS ${redact(servers.natsUrl)}, ${where}: no stream or bucket of the system was there`,
    );
  } finally {
    await nc.close();
  }
  await removeDatabase(servers.databaseUrl, instance.database);
  lines.push(
    `Postgres ${redact(withDatabase(servers.databaseUrl, instance.database))}: the database and its services' roles are gone`,
  );
  return lines;
}
