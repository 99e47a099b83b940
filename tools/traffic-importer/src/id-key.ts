import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export function idKeyFileBeside(positionsFile: string): string {
  return join(dirname(positionsFile), 'id-key');
}

export class IdKeyError extends Error {}

const KEY = /^([0-9a-f]{64})\n?$/;

/**
 * Keyed ids let this installation's re-imports dedupe in JetStream while nobody without the key
 * can compute (and squat) an id. Without `create`, a missing key is replaced by a throwaway one.
 */
export async function loadIdKey(
  file: string,
  { create }: { create: boolean },
): Promise<{ key: Buffer; created: boolean }> {
  const existing = await read(file);
  if (existing) return { key: existing, created: false };
  const key = randomBytes(32);
  if (!create) return { key, created: false };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${key.toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another import made it meanwhile: its key is the installation's.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const made = await read(file);
      if (made) return { key: made, created: false };
    }
    throw new IdKeyError(`cannot write the event id key ${file}: ${(error as Error).message}`);
  }
  return { key, created: true };
}

async function read(file: string): Promise<Buffer | undefined> {
  let text: string;
  let mode: number;
  try {
    [text, mode] = await Promise.all([readFile(file, 'utf8'), stat(file).then((s) => s.mode)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new IdKeyError(`cannot read the event id key ${file}: ${(error as Error).message}`);
  }
  if ((mode & 0o077) !== 0)
    throw new IdKeyError(
      `the event id key ${file} may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`,
    );
  const match = KEY.exec(text);
  if (!match)
    throw new IdKeyError(
      `the event id key ${file} is not one this importer wrote (64 hex digits): move it away to make a new one (re-imports then get new ids)`,
    );
  return Buffer.from(match[1], 'hex');
}
