import { checkReferences, importSpecifiers } from './references';

const graph = (entries: Record<string, [string, string[]]>) =>
  new Map(
    Object.entries(entries).map(([name, [stability, references]]) => [
      name,
      { stability, references },
    ]),
  );

const rules = (entries: Record<string, [string, string[]]>) =>
  checkReferences(graph(entries)).map((v) => `${v.rule} ${v.subject} ${v.path}`);

describe('references between packages', () => {
  it('finds static, type, dynamic and re-export imports', () => {
    const text = [
      "import type { A } from '../../a/v1';",
      "export * from './b';",
      "type S = import('../../status').Status;",
      "import '../side-effect';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['../../a/v1', './b', '../../status', '../side-effect']);
  });

  it('ONE_DEFINITION_RULE: a stable package reaches one major of a family, even transitively', () => {
    expect(
      rules({
        'a.v1': ['stable', ['b.v1', 'c.v1']],
        'b.v1': ['stable', []],
        'c.v1': ['stable', ['b.v2']],
        'b.v2': ['stable', []],
      }),
    ).toEqual(['ONE_DEFINITION_RULE a.v1 b']);
    // Its own family counts: a v2 may not use its v1.
    expect(rules({ 'a.v2': ['stable', ['a.v1']], 'a.v1': ['stable', []] })).toEqual([
      'ONE_DEFINITION_RULE a.v2 a',
    ]);
    expect(
      rules({
        'a.v1': ['stable', ['b.v2', 'c.v1']],
        'c.v1': ['stable', ['b.v2']],
        'b.v2': ['stable', []],
      }),
    ).toEqual([]);
  });

  it('STABLE_REFERENCES_ALPHA: stable never reaches alpha; alpha may reach anything', () => {
    expect(
      rules({
        'a.v1': ['stable', ['c.v1']],
        'c.v1': ['stable', ['b.v2alpha']],
        'b.v2alpha': ['alpha', []],
      }),
    ).toEqual(['STABLE_REFERENCES_ALPHA a.v1 b.v2alpha', 'STABLE_REFERENCES_ALPHA c.v1 b.v2alpha']);
    expect(
      rules({
        'b.v2alpha': ['alpha', ['b.v1', 'c.v1']],
        'b.v1': ['stable', []],
        'c.v1': ['stable', []],
      }),
    ).toEqual([]);
  });
});
