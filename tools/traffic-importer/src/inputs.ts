import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** One input of an import: a file (gzip or not) or standard input. */
export interface Input {
  /** As shown in reports: the path, or `-` for standard input. */
  name: string;
  /** Bytes on disk; undefined for standard input. */
  size?: number;
  /** The input's text, and a count of the bytes read from disk so far (for progress). */
  open(onBytes: (bytes: number) => void): Promise<Readable>;
}

export class InputError extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * The inputs named on the command line: `-` is standard input, a directory stands for the
 * files in it (sorted by name, not recursing), anything else is a file. Gzip is recognised by
 * its magic bytes, whatever the file is called.
 */
export async function resolveInputs(
  paths: readonly string[],
  stdin: Readable = process.stdin,
): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const path of paths) {
    if (path === '-') {
      inputs.push({ name: '-', open: async () => stdin.setEncoding('utf8') });
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new InputError(`${path}: no such file or directory`);
    if (info.isDirectory()) {
      const entries = (await readdir(path, { withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort();
      if (entries.length === 0) throw new InputError(`${path}: the directory holds no files`);
      for (const entry of entries) inputs.push(await fileInput(join(path, entry)));
    } else {
      inputs.push(await fileInput(path));
    }
  }
  return inputs;
}

async function fileInput(path: string): Promise<Input> {
  const { size } = await stat(path);
  return {
    name: path,
    size,
    open: async (onBytes) => {
      const handle = await open(path, 'r');
      const head = Buffer.alloc(2);
      await handle.read(head, 0, 2, 0);
      await handle.close();
      const raw = createReadStream(path);
      const counted = raw.pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            onBytes(chunk.length);
            done(null, chunk);
          },
        }),
      );
      raw.on('error', (error) => counted.destroy(error));
      const gzipped = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
      if (!gzipped) return counted.setEncoding('utf8');
      const gunzip = createGunzip();
      counted.on('error', (error) => gunzip.destroy(error));
      return counted.pipe(gunzip).setEncoding('utf8');
    },
  };
}
