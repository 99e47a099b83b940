import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive } from './processes';

/**
 * The files `npm start` leaves for local tools while it runs (the development token, the NATS
 * operator) belong to the launcher that wrote them: its pid is in `<file>.owner` beside each.
 * A second launcher started from the same checkout neither overwrites nor removes them while
 * their owner runs, and a launcher removes only what it wrote itself.
 */
export type OwnedWrite = { written: true } | { written: false; ownerPid: number };

const ownerFile = (path: string) => `${path}.owner`;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function ownerOf(path: string): number | undefined {
  const pid = Number(read(ownerFile(path))?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Writes `content` unless another running launcher owns the file (an owner that is gone does not count). */
export function writeOwnedFile(path: string, content: string, pid = process.pid): OwnedWrite {
  const owner = ownerOf(path);
  if (owner !== undefined && owner !== pid && isAlive(owner) && read(path) !== undefined)
    return { written: false, ownerPid: owner };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode: 0o600 });
  writeFileSync(ownerFile(path), `${pid}\n`, { mode: 0o600 });
  return { written: true };
}

/** Removes the file only if this launcher owns it and it still holds what this launcher wrote. */
export function removeOwnedFile(path: string, content: string, pid = process.pid): void {
  if (ownerOf(path) !== pid) return;
  if (read(path) === content) rmSync(path, { force: true });
  rmSync(ownerFile(path), { force: true });
}
