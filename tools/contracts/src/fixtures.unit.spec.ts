import { join, relative } from 'node:path';
import { compareLocks } from './compat';
import { type ContractLib, findPackageSources, loadDefinitions } from './discover';
import { annotateDeprecations, checkPackage, lockPackage, messagesOf } from './lock';
import { formatViolation, type LockFile } from './model';
import { REPO_ROOT } from './paths';
import { SchemaBuilder } from './schema';

/**
 * The checker end to end on real TypeScript: a released package (before), the same package
 * with a deliberately breaking change (after), and with compatible changes (compatible).
 */
const fixtures = relative(REPO_ROOT, join(__dirname, '__fixtures__'));
const lib = (dir: string): ContractLib => ({
  root: `${fixtures}/${dir}`,
  sourceRoot: `${fixtures}/${dir}`,
  stability: 'stable',
});

function lockOf(dir: string): LockFile {
  const sources = findPackageSources(REPO_ROOT, lib(dir));
  expect(loadDefinitions(REPO_ROOT, sources)).toEqual([]);
  const builder = new SchemaBuilder(
    REPO_ROOT,
    sources.flatMap((source) => source.files),
  );
  const lock: LockFile = { lockVersion: 1, packages: {} };
  for (const source of sources) {
    const definition = source.definition!;
    const { definitions, unknown } = builder.build(source, Object.keys(messagesOf(definition)));
    expect(unknown).toEqual([]);
    expect(checkPackage(source.name, definition, 'stable', definitions)).toEqual([]);
    lock.packages[source.name] = lockPackage(definition, definitions, []);
  }
  return lock;
}

describe('the checker on TypeScript fixtures', () => {
  const before = lockOf('breaking/before');

  it('fails a deliberately breaking change, naming the rule and the field', () => {
    const violations = compareLocks(before, lockOf('breaking/after'));
    expect(violations.map(formatViolation)).toEqual([
      expect.stringMatching(/^\[FIELD_REMOVED\] widget\.v1 Widget\.color: field removed/),
    ]);
  });

  it('passes compatible changes: optional field, enum value, deprecation, reworded comments', () => {
    const compatible = lockOf('breaking/compatible');
    expect(compatible.packages['widget.v1'].hash).not.toEqual(before.packages['widget.v1'].hash);
    expect(compareLocks(before, compatible)).toEqual([]);
  });

  it('marks a deprecation in the schema with its version and replacement', () => {
    const sources = findPackageSources(REPO_ROOT, lib('breaking/compatible'));
    loadDefinitions(REPO_ROOT, sources);
    const [source] = sources;
    const { definitions } = new SchemaBuilder(REPO_ROOT, source.files).build(source, ['Widget']);
    const widget = annotateDeprecations(definitions, source.definition!.deprecations ?? []).Widget;
    expect((widget.properties as Record<string, unknown>).size).toMatchObject({
      deprecated: true,
      'x-deprecated-since': '1.1.0',
      'x-replacement': 'Widget.sizeMm',
      'x-disallowed-by-default': true,
    });
  });

  it('MISSING_PACKAGE_TS: a package directory without package.ts is refused, by name', () => {
    const sources = findPackageSources(REPO_ROOT, lib('missing'));
    expect(sources.map((source) => source.name)).toEqual(['gadget.v1']);
    expect(loadDefinitions(REPO_ROOT, sources).map(formatViolation)).toEqual([
      expect.stringMatching(
        /^\[MISSING_PACKAGE_TS\] gadget\.v1 .*gadget\/v1\/package\.ts: the package directory has no package\.ts/,
      ),
    ]);
  });
});
