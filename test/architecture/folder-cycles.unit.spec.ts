import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';
import { root, shippedSources } from './source-files';

/**
 * A folder is a room: its files may lean on other rooms, but two rooms that lean on each other
 * are one room split in two, and a newcomer cannot tell which one a piece belongs to. This reads
 * every relative import of the shipped and tested sources and fails on any cycle between folders.
 */
const extensions = ['.ts', '.tsx'];

/** The file a relative specifier names, as the compiler would find it; undefined for non-code. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier.replace(/\.js$/, ''));
  const candidates = [
    ...extensions.map((ext) => base + ext),
    ...extensions.map((ext) => join(base, `index${ext}`)),
  ];
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  return found && relative(root, found);
}

/**
 * The arrow an import draws between sibling folders: from the child of the two folders' nearest
 * common ancestor that holds the importer to the one that holds the imported file. An import
 * between a folder and one inside it draws none: the inner folder is part of the outer one.
 */
function siblingArrow(from: string, to: string): [string, string] | undefined {
  const [a, b] = [from.split(sep), to.split(sep)];
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared += 1;
  if (shared === a.length || shared === b.length) return undefined;
  return [a.slice(0, shared + 1).join(sep), b.slice(0, shared + 1).join(sep)];
}

interface FolderGraph {
  edges: Map<string, Set<string>>;
  /** For each arrow `from -> to`, the files whose imports draw it. */
  reasons: Map<string, string[]>;
}

/** Every relative import of `files` that names code, as [importer, imported file]. */
function relativeImports(files: string[]): [string, string][] {
  return files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
      .importedFiles.filter(({ fileName }) => fileName.startsWith('.'))
      .flatMap(({ fileName }): [string, string][] => {
        const target = resolveImport(file, fileName);
        return target ? [[file, target]] : [];
      }),
  );
}

function folderGraph(imports: [string, string][]): FolderGraph {
  const edges = new Map<string, Set<string>>();
  const reasons = new Map<string, string[]>();
  for (const [file, target] of imports) {
    const arrow = siblingArrow(dirname(file), dirname(target));
    if (!arrow) continue;
    const [from, to] = arrow;
    edges.set(from, (edges.get(from) ?? new Set()).add(to));
    const key = `${from} -> ${to}`;
    reasons.set(key, [...(reasons.get(key) ?? []), `${file} imports ${target}`]);
  }
  return { edges, reasons };
}

/** Tarjan's strongly connected components with more than one folder: each is a cycle. */
function cycles({ edges }: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** A cycle as a reader fixes it: its folders, then the imports that close it. */
function explain(component: string[], { edges, reasons }: FolderGraph): string {
  const members = new Set(component);
  const arrows = component.flatMap((from) =>
    [...(edges.get(from) ?? [])]
      .filter((to) => members.has(to))
      .flatMap((to) => reasons.get(`${from} -> ${to}`)!.map((why) => `    ${why}`)),
  );
  return [`  ${component.join(' <-> ')}`, ...arrows].join('\n');
}

// Specs stay out: a spec tests its folder's code from outside it, and an integration spec boots
// the whole app; what a newcomer must find a room for is the code itself.
const files = shippedSources();

describe('folder cycles', () => {
  it('finds a cycle between two sibling folders, also through a folder inside one of them', () => {
    const graph = folderGraph([
      ['p/a/x.ts', 'p/b/c/y.ts'],
      ['p/b/c/y.ts', 'p/a/z.ts'],
      ['p/b/y.ts', 'p/d/w.ts'],
    ]);
    expect(cycles(graph)).toEqual([['p/a', 'p/b']]);
    expect(explain(['p/a', 'p/b'], graph)).toContain('p/b/c/y.ts imports p/a/z.ts');
  });

  it('reads a folder and the folders inside it as one: importing each other is no cycle', () => {
    expect(
      cycles(
        folderGraph([
          ['p/app.module.ts', 'p/a/a.module.ts'],
          ['p/a/x.ts', 'p/config.ts'],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the code of every project', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(relativeImports(files).length).toBeGreaterThan(1000);
  });

  it('has none between the folders of any project', () => {
    const graph = folderGraph(relativeImports(files));
    const found = cycles(graph).map((component) => explain(component, graph));
    expect(found.join('\n')).toBe('');
  });
});
