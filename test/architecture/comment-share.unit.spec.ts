import { join } from 'node:path';
import { commentShare, countLines } from './comment-share';

describe('comment share', () => {
  it('counts lines holding only comments over non-blank lines', () => {
    const source = [
      '/**',
      ' * Why this exists.',
      ' */',
      'export const a = 1; // trailing: a code line',
      '',
      '// a line comment',
      'const b = `',
      '// text of a template, not a comment',
      '${a} /* nor this */`;',
      "const c = '/* a string */';",
      '/* one */ /* two */',
      'const d = /\\/\\*/.test(c) ? a / 2 : 0;',
      '   ',
    ].join('\n');
    expect(countLines(source)).toEqual({ comment: 5, nonBlank: 11 });
  });

  it('reads the shipped code of apps, libs and tools, and no specs or test kits', () => {
    const share = commentShare(join(__dirname, '..', '..'));
    expect(share.all.files).toBeGreaterThan(500);
    expect(share.all.comment).toBeGreaterThan(0);
    expect(share.all.nonBlank).toBe(
      share.apps.nonBlank + share.libs.nonBlank + share.tools.nonBlank,
    );
  });

  it('keeps comments at most 8% of the shipped lines: they say why, the code says what', () => {
    const { all } = commentShare(join(__dirname, '..', '..'));
    expect(all.comment / all.nonBlank).toBeLessThanOrEqual(0.08);
  });
});
