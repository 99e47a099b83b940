import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as ts from 'typescript';
import { root, shippedSources } from './source-files';

/**
 * SQL lives where a newcomer looks for it: in repositories and their statements files, so a
 * schema change reads the files named for it and no others. Migrations write SQL by nature.
 * Checked: the statements that read or change rows, keywords in capitals as the code writes them.
 */

const SQL_HOME = /(\.repository|statements|-reads)\.ts$/;
const MIGRATION = /(^|\/)migrations\/|(^|[/.-])migration\.ts$/;
const ROW_STATEMENT =
  /^\s*\(?\s*(SELECT\s[\s\S]*|INSERT\s+INTO\s|UPDATE\s+\S+\s+(\S+\s+)?SET\s|DELETE\s+FROM\s|WITH\s+(RECURSIVE\s+)?\w+\s+AS\s*(NOT\s+)?(MATERIALIZED\s*)?\()/;

/** The string and template literals of `source` that are row statements, with their lines. */
function rowStatements(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateExpression(node)
          ? node.head.text + node.templateSpans.map((span) => `_${span.literal.text}`).join('')
          : undefined;
    if (text !== undefined && ROW_STATEMENT.test(text)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${fileName}:${line} ${text.trim().replace(/\s+/g, ' ').slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const mayHoldSql = (file: string) => SQL_HOME.test(basename(file)) || MIGRATION.test(file);

const files = shippedSources();

describe('SQL homes', () => {
  it('finds row statements in strings and templates, and not English that starts alike', () => {
    const source = [
      'const a = `SELECT id FROM t WHERE x = $1`;',
      "const b = 'INSERT INTO t (a) VALUES ($1)';",
      'const c = `UPDATE ${table} SET n = 1`;',
      'const d = `\n  WITH due AS (SELECT 1) DELETE FROM t`;',
      "const e = 'Select a policy first';",
      "const f = 'UPDATE the lease';",
      "const g = 'delete from the list';",
    ].join('\n');
    expect(rowStatements('x.ts', source).map((hit) => hit.split(' ')[0])).toEqual([
      'x.ts:1',
      'x.ts:2',
      'x.ts:3',
      'x.ts:4',
    ]);
  });

  it('lets repositories, statements files, reads files and migrations hold SQL', () => {
    expect(
      [
        'apps/a/src/leases/leases.repository.ts',
        'apps/a/src/ledger/ledger-statements.ts',
        'apps/a/src/report/disagreement-reads.ts',
        'apps/a/src/migrations/1700000000000-create.ts',
        'libs/platform/event-store/src/migration.ts',
        'apps/a/src/leases/lease.use-case.ts',
        'apps/a/src/report/reads.controller.ts',
      ].map(mayHoldSql),
    ).toEqual([true, true, true, true, true, false, false]);
  });

  it('reads the code of every project', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(files.filter(mayHoldSql).length).toBeGreaterThan(20);
  });

  it('finds SQL nowhere else', () => {
    const misplaced = files
      .filter((file) => !mayHoldSql(file))
      .flatMap((file) => rowStatements(file, readFileSync(join(root, file), 'utf8')));
    expect(misplaced.join('\n')).toBe('');
  });
});
