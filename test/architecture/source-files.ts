import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root, and the shipped sources the architecture tests read (specs left out). */
export const root = join(__dirname, '..', '..');
const SOURCE_ROOTS = ['apps/*/src', 'libs/*/src', 'libs/*/*/src', 'tools/*/src'];

/** A root pattern's folders, `*` standing for any one folder. */
function expand(pattern: string): string[] {
  return pattern.split('/').reduce<string[]>(
    (dirs, part) =>
      dirs.flatMap((dir) =>
        part === '*'
          ? readdirSync(join(root, dir), { withFileTypes: true })
              .filter((e) => e.isDirectory())
              .map((e) => join(dir, e.name))
          : existsSync(join(root, dir, part))
            ? [join(dir, part)]
            : [],
      ),
    [''],
  );
}

function codeFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every shipped .ts/.tsx file (no specs, no declarations), relative to the root. */
export const shippedSources = (): string[] =>
  SOURCE_ROOTS.flatMap(expand)
    .flatMap(codeFiles)
    .filter((file) => !/\.spec\.tsx?$/.test(file));
