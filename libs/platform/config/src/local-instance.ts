import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Left by `npm start` while it runs, so local tools (`npm run demo`) target its instance untold. */
export const LOCAL_INSTANCE_FILE = join('tmp', 'instance.json');

export interface LocalInstance {
  apiUrl: string;
  natsUrl: string;
  namespace: string;
  database: string;
  pid: number;
}

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
    // A launcher killed outright leaves its file behind.
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
