import type { ContractPackageDefinition, Stability } from '@rollout/contracts';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Violation } from './model';

export const VERSION_DIR = /^v\d+(?:(?:alpha|beta)\d*)?$/;
export const PACKAGE_FILE = 'package.ts';

export interface ContractLib {
  root: string;
  sourceRoot: string;
  stability?: Stability;
}

export interface PackageSource {
  /** `experiment/v1` → `experiment.v1`. */
  name: string;
  lib: ContractLib;
  dir: string;
  /** Specs left out. */
  files: string[];
  definition?: ContractPackageDefinition;
}

/** Found by the `type:contracts` tag, so a new contracts lib is found by itself. */
export function findContractLibs(root: string): ContractLib[] {
  const libs: ContractLib[] = [];
  const libsDir = join(root, 'libs');
  for (const entry of readdirSync(libsDir).sort()) {
    const projectFile = join(libsDir, entry, 'project.json');
    if (!existsSync(projectFile)) continue;
    const project = JSON.parse(readFileSync(projectFile, 'utf8')) as {
      sourceRoot?: string;
      tags?: string[];
    };
    const tags = project.tags ?? [];
    if (!tags.includes('type:contracts')) continue;
    const stabilityTag = tags
      .find((tag) => tag.startsWith('stability:'))
      ?.slice('stability:'.length);
    libs.push({
      root: `libs/${entry}`,
      sourceRoot: project.sourceRoot ?? `libs/${entry}/src`,
      stability: stabilityTag === 'stable' || stabilityTag === 'alpha' ? stabilityTag : undefined,
    });
  }
  return libs;
}

function tsFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, dir)).sort()) {
    const path = `${dir}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) {
      if (entry !== '__fixtures__') files.push(...tsFiles(root, path));
    } else if (entry.endsWith('.ts') && !entry.endsWith('.spec.ts') && !entry.endsWith('.d.ts')) {
      files.push(path);
    }
  }
  return files;
}

export function findPackageSources(root: string, lib: ContractLib): PackageSource[] {
  const found: PackageSource[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${entry}`;
      if (!statSync(join(root, path)).isDirectory() || entry === '__fixtures__') continue;
      if (VERSION_DIR.test(entry)) {
        const name = relative(lib.sourceRoot, path).split(sep).join('.');
        found.push({ name, lib, dir: path, files: tsFiles(root, path) });
      } else {
        walk(path);
      }
    }
  };
  walk(lib.sourceRoot);
  return found;
}

export function contractLibFiles(root: string, libs: ContractLib[]): string[] {
  return libs.flatMap((lib) => tsFiles(root, lib.sourceRoot));
}

function isDefinition(value: unknown): value is ContractPackageDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ContractPackageDefinition>;
  return (
    typeof candidate.name === 'string' &&
    typeof candidate.version === 'string' &&
    'stability' in candidate
  );
}

/** A package without a `package.ts` exporting a definition is a violation. */
export function loadDefinitions(root: string, sources: PackageSource[]): Violation[] {
  const violations: Violation[] = [];
  for (const source of sources) {
    const file = join(root, source.dir, PACKAGE_FILE);
    if (!existsSync(file)) {
      violations.push({
        rule: 'MISSING_PACKAGE_TS',
        subject: source.name,
        path: `${source.dir}/${PACKAGE_FILE}`,
        message: `the package directory has no ${PACKAGE_FILE}: add one that exports definePackage({ name: '${source.name}', version, stability, requests, replies, events, resources })`,
      });
      continue;
    }
    let exported: Record<string, unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      exported = require(file) as Record<string, unknown>;
    } catch (error) {
      violations.push({
        rule: 'INVALID_PACKAGE_TS',
        subject: source.name,
        path: `${source.dir}/${PACKAGE_FILE}`,
        message: `cannot be loaded: ${error instanceof Error ? error.message : String(error)}`,
      });
      continue;
    }
    const definitions = Object.values(exported).filter(isDefinition);
    if (definitions.length !== 1) {
      violations.push({
        rule: 'INVALID_PACKAGE_TS',
        subject: source.name,
        path: `${source.dir}/${PACKAGE_FILE}`,
        message: `must export exactly one definePackage(...) value (found ${definitions.length})`,
      });
      continue;
    }
    source.definition = definitions[0];
  }
  return violations;
}

/** Constants such as `EXPERIMENT_V1`, which services report, must agree with package.ts. */
export function packageConstants(
  root: string,
  source: PackageSource,
): { name: string; version: string; file: string }[] {
  const constants: { name: string; version: string; file: string }[] = [];
  for (const file of source.files) {
    if (file.endsWith(`/${PACKAGE_FILE}`)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exported = require(join(root, file)) as Record<string, unknown>;
    for (const value of Object.values(exported)) {
      if (typeof value !== 'object' || value === null || isDefinition(value)) continue;
      const candidate = value as { name?: unknown; version?: unknown };
      if (
        typeof candidate.name === 'string' &&
        typeof candidate.version === 'string' &&
        candidate.name === source.name
      ) {
        constants.push({ name: candidate.name, version: candidate.version, file });
      }
    }
  }
  return constants;
}
