import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm ci` warns EBADENGINE when a locked package wants a newer Node than the project runs on:
 * every package in the lock must accept the oldest Node that package.json's "engines" allows.
 */
// npm's own range rules (semver ships with npm's dependency tree, without type declarations).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { minVersion, satisfies } = require('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};
const ROOT = join(__dirname, '..', '..');
const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

describe('the locked dependencies and the Node version the project declares', () => {
  it('every locked package accepts the oldest supported Node', () => {
    const declared: string = readJson('package.json').engines.node;
    const oldest = minVersion(declared)?.version;
    expect(oldest).toBeDefined();
    const lock = readJson('package-lock.json') as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.engines?.node)
      .filter(([, entry]) => !satisfies(oldest!, entry.engines!.node!))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
