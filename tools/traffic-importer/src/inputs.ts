import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface Input {
  name: string;
  /** Undefined for standard input, which has no position to resume from. */
  path?: string;
  size?: number;
  gzip?: boolean;
  /** Decompressed bytes from `from`; `onBytes` counts bytes read from disk (for progress). */
  open(onBytes: (bytes: number) => void, from?: number): Promise<Readable>;
}

export class InputError extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b];

/** A directory stands for its files (sorted, not recursing); gzip is recognised by its magic bytes. */
export async function resolveInputs(
  paths: readonly string[],
  stdin: Readable = process.stdin,
): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const path of paths) {
    if (path === '-') {
      inputs.push({ name: '-', open: async () => stdin });
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
  const handle = await open(path, 'r');
  const head = Buffer.alloc(2);
  await handle.read(head, 0, 2, 0).finally(() => handle.close());
  const gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  return {
    name: path,
    path,
    size,
    gzip,
    open: async (onBytes, from = 0) => {
      // A plain file is read from the offset on; a gzip one is decompressed up to it and that dropped.
      const raw = createReadStream(path, { start: gzip ? 0 : from });
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          onBytes(chunk.length);
          done(null, chunk);
        },
      });
      const stages: NodeJS.ReadWriteStream[] = gzip
        ? [counted, createGunzip(), ...(from > 0 ? [skipBytes(from)] : [])]
        : [counted];
      // One pipeline: an error anywhere reaches the reader, and destroying the end closes the file.
      return pipeline([raw, ...stages], () => undefined) as unknown as Readable;
    },
  };
}

function skipBytes(count: number): Transform {
  let left = count;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (left >= chunk.length) {
        left -= chunk.length;
        return done();
      }
      const kept = chunk.subarray(left);
      left = 0;
      done(null, kept);
    },
  });
}
