import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';

/** A relative link in a Markdown file that does not lead anywhere. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

const LINK = /\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** The anchors GitHub gives a file's headings (lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

/**
 * Every relative link (and its #anchor) of the given files that does not resolve. `files` maps
 * repository-relative paths to contents; `exists` says whether a repository-relative path is a
 * file or directory. A link that leaves the repository is broken: a clone has nothing there.
 */
export function findBrokenLinks(
  files: ReadonlyMap<string, string>,
  exists: (path: string) => boolean,
): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) anchorsOf.set(path, (found = headingAnchors(files.get(path) ?? '')));
    return found;
  };
  for (const [file, markdown] of files) {
    for (const { text, line } of proseLines(markdown)) {
      for (const [, target] of text.replace(/`[^`]*`/g, '').matchAll(LINK)) {
        if (EXTERNAL.test(target)) continue;
        const report = (reason: string) => broken.push({ file, line, target, reason });
        const [pathPart, anchor] = target.split('#', 2);
        if (isAbsolute(pathPart)) {
          report('absolute path');
          continue;
        }
        const path =
          pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
        if (path.startsWith(`..${sep}`) || path === '..' || relative('.', path).startsWith('..')) {
          report('points outside the repository');
        } else if (!exists(path)) {
          report('no such file');
        } else if (anchor !== undefined && path.endsWith('.md') && !anchors(path).has(anchor)) {
          report(`no heading #${anchor} in ${path}`);
        }
      }
    }
  }
  return broken;
}

/** The lines of a Markdown text outside fenced code blocks, numbered from 1. */
function* proseLines(markdown: string): Generator<{ text: string; line: number }> {
  let fenced = false;
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (/^\s*(```|~~~)/.test(lines[index])) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) yield { text: lines[index], line: index + 1 };
  }
}
