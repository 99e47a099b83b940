import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * libs/platform is infrastructure every service shares: a service's name in it means the
 * platform knows the system it serves (its durables, its subjects, its keys), which belongs to
 * the contracts or to the service. A service is named by its app folder's name, or by that
 * name's first word (`enforcement` for apps/enforcement-service), in any case, in code or in a
 * comment. Specs and test kits stay out: they may take a service as an example.
 */
const root = join(__dirname, '..', '..');

const serviceNames = (appsDir: string): string[] =>
  readdirSync(appsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [entry.name, entry.name.split('-')[0]]);

/** A name as a word of its own: letters or digits on neither side (`_`, `.`, `-` separate). */
const namePattern = (names: readonly string[]) =>
  new RegExp(`(?<![a-z0-9])(${[...new Set(names)].join('|')})(?![a-z0-9])`, 'i');

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : shippedSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `file:line: text` for each line of `files` that names a service. */
function namingLines(files: { path: string; text: string }[], names: readonly string[]) {
  const pattern = namePattern(names);
  return files.flatMap(({ path, text }) =>
    text
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('libs/platform names no service', () => {
  const names = serviceNames(join(root, 'apps'));

  it('takes the services from apps/, with their short names', () => {
    expect(names).toEqual(
      expect.arrayContaining(['experiment-service', 'experiment', 'evaluator', 'gateway']),
    );
  });

  it('finds a service named in code or a comment, and not a word that only contains one', () => {
    const found = namingLines(
      [
        { path: 'a.ts', text: "export const TRAFFIC_DURABLE = 'evaluator';" },
        { path: 'b.ts', text: '// ENFORCEMENT_SUBJECTS, from test/bench/enforcement.bench.ts' },
        { path: 'c.ts', text: '/** Every request the gateway signs. */' },
        { path: 'd.ts', text: 'const reinspection = gatewayless + experimental;' },
      ],
      ['evaluator', 'enforcement', 'gateway', 'inspection', 'experiment'],
    );
    expect(found.map((line) => line.split(':')[0])).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });

  it('holds in every shipped file of libs/platform', () => {
    const files = shippedSources(join(root, 'libs', 'platform')).map((path) => ({
      path: relative(root, path),
      text: readFileSync(path, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(50);
    expect(namingLines(files, names).join('\n')).toBe('');
  });
});
