import {
  LauncherSettings,
  RunningSystem,
  SERVICES,
  ServiceName,
  launch,
  readSettings,
  removeDatabase,
} from '@rollout/launcher';
import {
  TEST_POSTGRES_URL,
  freePorts,
  removeTestResources,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const DIST = join(__dirname, '..', '..', 'dist');

/** Settings and env of one isolated system: free ports, its own database and NATS namespace. */
export async function isolatedSettings() {
  const namespace = uniqueName('e2e');
  const database = namespace;
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    NATS_NAMESPACE: namespace,
    LOG_LEVEL: 'silent',
  };
  const ports = await freePorts(SERVICES.length);
  SERVICES.forEach((service, i) => (env[service.portVar] = String(ports[i])));
  const settings: LauncherSettings = readSettings(env);
  return { namespace, database, env, settings };
}

/** Starts the built system (npm run build first) the way `npm start` does. */
export async function startSystem(): Promise<{
  system: RunningSystem;
  database: string;
  ports: Record<ServiceName, number>;
}> {
  const { database, env, settings } = await isolatedSettings();
  const system = await launch({
    settings,
    distRoot: DIST,
    extraEnv: { NATS_NAMESPACE: env.NATS_NAMESPACE, LOG_LEVEL: env.LOG_LEVEL },
    log: () => undefined,
  });
  return { system, database, ports: settings.ports };
}

/**
 * Removes what one run left: its database and its NATS namespace's streams (isolatedSettings
 * names both alike). Streams must go: JetStream reserves each stream's byte limit on disk.
 */
export async function removeRun(run: string): Promise<void> {
  // The database and the services' roles in it, which the launcher made for this run.
  await removeDatabase(TEST_POSTGRES_URL, run);
  await removeTestResources({ namespace: run });
}

/** Processes whose environment carries this run's namespace: everything the run started. */
export function processesOf(namespace: string): number[] {
  const marker = `NATS_NAMESPACE=${namespace}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/**
 * Calls the gateway of a running system with its development token (or `token`, where keys are
 * configured and there is none); the answer's status and JSON body.
 */
export function gatewayApi(system: RunningSystem, token = system.devToken) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${system.urls.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, JsonBody> };
  };
}
