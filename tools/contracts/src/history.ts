import { execFileSync } from 'node:child_process';
import type { LockFile } from './model';

export interface PreviousLock {
  ref: string;
  lock: LockFile;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

function lockAt(root: string, commit: string, lockFile: string): LockFile | undefined {
  const text = git(root, ['show', `${commit}:${lockFile}`]);
  if (!text) return undefined;
  try {
    const lock = JSON.parse(text) as LockFile;
    return lock && typeof lock.packages === 'object' ? lock : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every committed version of the lock in HEAD's history (plus the merge base with
 * `CONTRACTS_BASE_REF`), not only the last: a break hidden by a later commit is still caught, and a
 * stable package can never drift from a lock it once shipped. No earlier lock: the check passes.
 */
export function previousLocks(
  root: string,
  lockFile: string,
  baseRef = process.env.CONTRACTS_BASE_REF,
): PreviousLock[] {
  const found: PreviousLock[] = [];
  const seen = new Set<string>();
  const add = (ref: string, lock: LockFile | undefined) => {
    if (!lock) return;
    const key = JSON.stringify(lock);
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ ref, lock });
  };
  if (baseRef) {
    const base = git(root, ['merge-base', 'HEAD', baseRef])?.trim();
    if (base)
      add(`merge-base with ${baseRef} (${base.slice(0, 10)})`, lockAt(root, base, lockFile));
  }
  const commits =
    git(root, ['log', '--format=%H', 'HEAD', '--', lockFile])?.split('\n').filter(Boolean) ?? [];
  for (const commit of commits) add(commit.slice(0, 10), lockAt(root, commit, lockFile));
  return found;
}
