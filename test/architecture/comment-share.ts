import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

/**
 * The share of source lines that are comments: lines holding only comment text, over every
 * non-blank line of the shipped TypeScript (apps/, libs/, tools/; no specs, no test kits). A
 * line with code and a trailing comment is code. `npm run comments` prints it.
 */
export interface LineCount {
  comment: number;
  nonBlank: number;
}

const TEST_CODE = /\.spec\.tsx?$|(^|\/)test\//;

export function countLines(source: string, fileName = 'source.ts'): LineCount {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const lines = source.split('\n');
  const hasCode = new Array<boolean>(lines.length).fill(false);
  const hasComment = new Array<boolean>(lines.length).fill(false);
  const mark = (marks: boolean[], start: number, end: number) => {
    const last = file.getLineAndCharacterOfPosition(Math.max(start, end - 1)).line;
    for (let line = file.getLineAndCharacterOfPosition(start).line; line <= last; line++)
      marks[line] = true;
  };
  const comments = new Set<number>();
  const markComments = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (comments.has(range.pos)) continue;
      comments.add(range.pos);
      mark(hasComment, range.pos, range.end);
    }
  };
  const visit = (node: ts.Node): void => {
    // A doc comment is also a node; its text is comment, read from the trivia below.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode)
      return;
    const children = node.getChildren(file);
    if (children.length > 0) return children.forEach(visit);
    markComments(ts.getLeadingCommentRanges(source, node.pos));
    markComments(ts.getTrailingCommentRanges(source, node.end));
    if (node.kind !== ts.SyntaxKind.EndOfFileToken) mark(hasCode, node.getStart(file), node.end);
  };
  visit(file);
  let comment = 0;
  let nonBlank = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    nonBlank += 1;
    if (hasComment[i] && !hasCode[i]) comment += 1;
  });
  return { comment, nonBlank };
}

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(root, path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !TEST_CODE.test(path)
      ? [path]
      : [];
  });
}

/** Per area (apps, libs, tools) and in all, with the number of files read. */
export function commentShare(root: string): Record<string, LineCount & { files: number }> {
  const areas = ['apps', 'libs', 'tools'];
  const counts = Object.fromEntries(
    areas.map((area) => {
      const files = sourceFiles(root, area);
      const total = files
        .map((file) => countLines(readFileSync(join(root, file), 'utf8'), file))
        .reduce(
          (sum, c) => ({ comment: sum.comment + c.comment, nonBlank: sum.nonBlank + c.nonBlank }),
          {
            comment: 0,
            nonBlank: 0,
          },
        );
      return [area, { ...total, files: files.length }];
    }),
  );
  const all = Object.values(counts).reduce((sum, c) => ({
    comment: sum.comment + c.comment,
    nonBlank: sum.nonBlank + c.nonBlank,
    files: sum.files + c.files,
  }));
  return { ...counts, all };
}

if (require.main === module) {
  const percent = ({ comment, nonBlank }: LineCount) => ((100 * comment) / nonBlank).toFixed(1);
  for (const [area, count] of Object.entries(commentShare(join(__dirname, '..', '..'))))
    process.stdout.write(
      `${area.padEnd(5)} ${percent(count).padStart(5)}% comments: ${count.comment} of ${count.nonBlank} non-blank lines in ${count.files} files\n`,
    );
}
