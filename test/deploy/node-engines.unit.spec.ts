import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies } from 'semver';

/**
 * `npm ci` warns EBADENGINE when a locked package wants a newer Node than the project runs on:
 * every package in the lock must accept the oldest Node that package.json's "engines" allows.
 */
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
