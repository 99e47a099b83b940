import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { PackageSource } from './discover';
import type { Violation } from './model';
import { parsePackageName } from './semver';

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((match) => match[1]);
}

function resolveFile(base: string): string | undefined {
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && (candidate.endsWith('.ts') || candidate.endsWith('.js')))
      return candidate;
  }
  return undefined;
}

/** Importing a contracts lib's root index counts as referencing every package of that lib. */
export function packageReferences(root: string, sources: PackageSource[]): Map<string, string[]> {
  const aliases =
    (
      JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
        compilerOptions: { paths?: Record<string, string[]> };
      }
    ).compilerOptions.paths ?? {};
  const owner = (file: string): string[] => {
    const rel = relative(root, file).split(sep).join('/');
    const own = sources.find((source) => rel.startsWith(`${source.dir}/`));
    if (own) return [own.name];
    const lib = sources.find((source) => rel === `${source.lib.sourceRoot}/index.ts`)?.lib;
    return lib ? sources.filter((source) => source.lib === lib).map((source) => source.name) : [];
  };
  const references = new Map<string, string[]>();
  for (const source of sources) {
    const found = new Set<string>();
    for (const file of source.files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const specifier of importSpecifiers(text)) {
        let target: string | undefined;
        if (specifier.startsWith('.'))
          target = resolveFile(resolve(root, dirname(file), specifier));
        else if (aliases[specifier]) target = resolveFile(join(root, aliases[specifier][0]));
        if (!target) continue;
        for (const name of owner(target)) if (name !== source.name) found.add(name);
      }
    }
    references.set(source.name, [...found].sort());
  }
  return references;
}

/**
 * Envoy's rules: a stable package never reaches an alpha one, and reaches at most one major of any
 * family, even transitively (the one-definition rule).
 */
export function checkReferences(
  packages: Map<string, { stability: string; references: string[] }>,
): Violation[] {
  const violations: Violation[] = [];
  const closure = (name: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [...(packages.get(name)?.references ?? [])];
    while (stack.length) {
      const next = stack.pop()!;
      if (seen.has(next) || next === name) continue;
      seen.add(next);
      stack.push(...(packages.get(next)?.references ?? []));
    }
    return seen;
  };
  for (const [name, info] of [...packages.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (info.stability !== 'stable') continue;
    const reached = closure(name);
    for (const other of [...reached].sort()) {
      const target = packages.get(other);
      if (target && target.stability !== 'stable') {
        violations.push({
          rule: 'STABLE_REFERENCES_ALPHA',
          subject: name,
          path: other,
          message: `stable package references alpha package ${other}`,
        });
      }
    }
    const majors = new Map<string, Set<string>>();
    for (const other of [name, ...reached]) {
      const parsed = parsePackageName(other);
      if (!parsed) continue;
      majors.set(parsed.family, (majors.get(parsed.family) ?? new Set()).add(other));
    }
    for (const [family, versions] of majors) {
      if (versions.size > 1) {
        violations.push({
          rule: 'ONE_DEFINITION_RULE',
          subject: name,
          path: family,
          message: `references ${[...versions].sort().join(' and ')}: a stable package uses at most one version of any package, even transitively`,
        });
      }
    }
  }
  return violations;
}
