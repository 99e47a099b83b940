import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Position } from './acked-position';
import type { Input } from './inputs';

/**
 * As log shippers keep it (Filebeat's registry, Fluent Bit's DB). A file is recognised by content:
 * hashes of its first KiB (`head`) and the KiB before its position (`anchor`), so a copy or rename
 * is the same file, a grown one resumes, and a truncated or rewritten one starts over.
 */
export interface PositionEntry extends Position {
  target: string;
  name: string;
  head: Fingerprint;
  anchor: Fingerprint;
  /** Given to the parser again on resume: they say how to read the lines after them. */
  header?: string[];
  savedAt: string;
}

export interface SavedPosition extends Position {
  header: string[];
}

export interface Fingerprint {
  end: number;
  bytes: number;
  sha256: string;
}

interface PositionsFile {
  version: 1;
  entries: PositionEntry[];
}

const FINGERPRINT_BYTES = 1024;

export function defaultPositionsFile(): string {
  const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'rollout-traffic', 'positions.json');
}

export type ReadRange = (start: number, end: number) => Promise<Buffer>;

async function fingerprint(read: ReadRange, end: number): Promise<Fingerprint> {
  const bytes = Math.min(FINGERPRINT_BYTES, end);
  const sha256 = createHash('sha256')
    .update(await read(end - bytes, end))
    .digest('hex');
  return { end, bytes, sha256 };
}

export async function sameFile(
  entry: Pick<PositionEntry, 'head' | 'anchor'>,
  read: ReadRange,
  size: number,
): Promise<boolean> {
  for (const print of [entry.head, entry.anchor]) {
    if (print.end > size) return false;
    const now = await fingerprint(read, print.end);
    if (now.bytes !== print.bytes || now.sha256 !== print.sha256) return false;
  }
  return true;
}

async function withFile<T>(path: string, use: (read: ReadRange) => Promise<T>): Promise<T> {
  const handle = await open(path, 'r');
  try {
    return await use(async (start, end) => {
      const buffer = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
      return buffer.subarray(0, bytesRead);
    });
  } finally {
    await handle.close();
  }
}

export interface Resume {
  from: Position;
  header: string[];
  replaces?: PositionEntry;
}

export class PositionsError extends Error {}

export class PositionStore {
  private readonly tracked = new Map<Input, { resume: Resume; position: () => SavedPosition }>();

  private constructor(
    readonly file: string,
    private readonly target: string,
    private entries: PositionEntry[],
    /** `--reset-positions`: every input starts at its beginning; its old entry is replaced. */
    private readonly reset: boolean,
  ) {}

  static async open(file: string, target: string, reset = false): Promise<PositionStore> {
    return new PositionStore(file, target, await load(file), reset);
  }

  async resumeOf(input: Input): Promise<Resume> {
    const start = { from: { offset: 0, lines: 0 }, header: [] };
    if (!input.path || input.size === undefined) return start;
    const size = input.size;
    const mine = this.entries.filter((entry) => entry.target === this.target);
    if (mine.length === 0) return start;
    const found = await withFile(input.path, async (read) => {
      for (const entry of mine) if (await sameFile(entry, read, size)) return entry;
      return undefined;
    });
    if (!found) return start;
    return this.reset
      ? { ...start, replaces: found }
      : {
          from: { offset: found.offset, lines: found.lines },
          header: found.header ?? [],
          replaces: found,
        };
  }

  track(input: Input, resume: Resume, position: () => SavedPosition): void {
    if (input.path) this.tracked.set(input, { resume, position });
  }

  /** Merged into what the file holds now (another import may have saved), then renamed over it atomically. */
  async save(): Promise<void> {
    const updates: { replaces?: PositionEntry; entry: PositionEntry }[] = [];
    for (const [input, { resume, position }] of this.tracked) {
      const at = position();
      if (at.offset === 0 || !input.path) continue;
      const anchorEnd = input.gzip ? (input.size ?? 0) : at.offset;
      const entry = await withFile(input.path, async (read) => ({
        target: this.target,
        name: input.name,
        head: await fingerprint(read, Math.min(FINGERPRINT_BYTES, input.size ?? at.offset)),
        anchor: await fingerprint(read, anchorEnd),
        ...at,
        savedAt: new Date().toISOString(),
      }));
      updates.push({ replaces: resume.replaces, entry });
      resume.replaces = entry;
    }
    if (updates.length === 0) return;
    const same = (a: PositionEntry, b?: PositionEntry) =>
      b !== undefined &&
      a.target === b.target &&
      a.head.sha256 === b.head.sha256 &&
      a.anchor.sha256 === b.anchor.sha256 &&
      a.anchor.end === b.anchor.end;
    const current = await load(this.file);
    const kept = current.filter(
      (entry) =>
        !updates.some(
          ({ replaces, entry: update }) => same(entry, replaces) || same(entry, update),
        ),
    );
    this.entries = [...kept, ...updates.map(({ entry }) => entry)];
    const body: PositionsFile = { version: 1, entries: this.entries };
    await mkdir(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(body, null, 1)}\n`);
    await rename(temporary, this.file);
  }
}

async function load(file: string): Promise<PositionEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new PositionsError(`cannot read the positions file ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<PositionsFile>;
    if (parsed.version === 1 && Array.isArray(parsed.entries)) return parsed.entries;
  } catch {
    // said below
  }
  throw new PositionsError(
    `the positions file ${file} is not one this importer wrote: move it away, or pass --positions <another file>`,
  );
}
