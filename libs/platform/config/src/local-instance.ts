import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where `npm start` leaves, while it runs, how to reach the instance it started, so that the
 * local tools (`npm run demo`, `rollout-traffic import`) target it without being told: under the
 * repository's tmp/ (ignored by git), removed when that launcher stops.
 */
export const LOCAL_INSTANCE_FILE = join('tmp', 'instance.json');

/** One running instance of the system on this machine, as its launcher describes it. */
export interface LocalInstance {
  /** The base URL of its HTTP API, e.g. http://127.0.0.1:3000. */
  apiUrl: string;
  natsUrl: string;
  /** NATS_NAMESPACE of its services ('' for none). */
  namespace: string;
  /** The Postgres database of its services. */
  database: string;
  /** The launcher's process id. */
  pid: number;
}

/** The instance `npm start` left under `root` (the repository), if its launcher still runs; undefined otherwise. */
export function readLocalInstance(root: string): LocalInstance | undefined {
  const file = join(root, LOCAL_INSTANCE_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalInstance>;
    if (
      typeof parsed.apiUrl !== 'string' ||
      typeof parsed.natsUrl !== 'string' ||
      typeof parsed.namespace !== 'string' ||
      typeof parsed.database !== 'string' ||
      typeof parsed.pid !== 'number'
    )
      return undefined;
    // A launcher killed outright leaves its file behind: a stopped instance is none.
    return isRunning(parsed.pid) ? (parsed as LocalInstance) : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
