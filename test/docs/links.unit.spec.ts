import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findBrokenLinks, headingAnchors } from './markdown-links';

const root = join(__dirname, '..', '..');

/** The repository's own Markdown: the README, docs/ and the deployment guides. */
function repositoryMarkdown(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', 'tmp'].includes(entry.name) || entry.name.startsWith('.'))
        continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md'))
        files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return files;
}

describe('documentation links', () => {
  it('resolves every relative link and anchor in README.md and docs/', () => {
    const files = repositoryMarkdown();
    expect([...files.keys()]).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md']),
    );
    expect(findBrokenLinks(files, (path) => existsSync(join(root, path)))).toEqual([]);
  });

  it('keeps the README short enough to read on a screen or two', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(
      250,
    );
  });

  it('reports a missing file, a missing heading and a link out of the repository, with their lines', () => {
    const files = new Map([
      ['README.md', '# Title\n\nSee [ops](docs/ops.md#what-to-size), [gone](docs/gone.md).\n'],
      [
        'docs/ops.md',
        '# Ops\n\n```\n[not a link](nowhere.md)\n```\nOutside: [x](../../elsewhere/NOTES.md) and `[code](nowhere.md)`\n',
      ],
    ]);
    const broken = findBrokenLinks(files, (path) => files.has(path));
    expect(broken).toEqual([
      {
        file: 'README.md',
        line: 3,
        target: 'docs/ops.md#what-to-size',
        reason: 'no heading #what-to-size in docs/ops.md',
      },
      { file: 'README.md', line: 3, target: 'docs/gone.md', reason: 'no such file' },
      {
        file: 'docs/ops.md',
        line: 6,
        target: '../../elsewhere/NOTES.md',
        reason: 'points outside the repository',
      },
    ]);
  });

  it('accepts links to headings as GitHub names them, in the same file too', () => {
    const markdown =
      '# Ops\n\n## Operations: a NATS cluster, and `what` to size\n\n## Writing a policy adapter (adapter.v1)\n\n## Ops\n\n[a](#ops-1) [b](#writing-a-policy-adapter-adapterv1)\n';
    expect(headingAnchors(markdown)).toEqual(
      new Set([
        'ops',
        'operations-a-nats-cluster-and-what-to-size',
        'writing-a-policy-adapter-adapterv1',
        'ops-1',
      ]),
    );
    expect(findBrokenLinks(new Map([['a.md', markdown]]), () => true)).toEqual([]);
  });
});
