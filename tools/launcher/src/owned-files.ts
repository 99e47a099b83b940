import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive } from './processes';

/**
 * The launcher that wrote a file for local tools owns it (its pid in `<file>.owner`): a second
 * launcher of the same checkout neither overwrites nor removes it while the owner runs.
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

export function writeOwnedFile(path: string, content: string, pid = process.pid): OwnedWrite {
  const owner = ownerOf(path);
  if (owner !== undefined && owner !== pid && isAlive(owner) && read(path) !== undefined)
    return { written: false, ownerPid: owner };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode: 0o600 });
  writeFileSync(ownerFile(path), `${pid}\n`, { mode: 0o600 });
  return { written: true };
}

export function removeOwnedFile(path: string, content: string, pid = process.pid): void {
  if (ownerOf(path) !== pid) return;
  if (read(path) === content) rmSync(path, { force: true });
  rmSync(ownerFile(path), { force: true });
}
