/**
 * The target-tag dimension. A connection carries any set of tags; a tagged rule matches when the
 * connection carries one of its tags, an untagged rule always. So which rule of a side decides
 * depends only on which of the side's tags the connection carries, and the tag sets where a
 * given rule decides are exactly: "none of the tags of the tagged rules before it, and (if it is
 * tagged) at least one of its other tags". A cell keeps that form: tags absent, and clauses
 * "at least one of". Intersecting two cells keeps it too, and a cell is empty exactly when a
 * clause has no tag left outside the absent ones (the other tags can then be chosen freely).
 */
import type { AnalysisTarget } from '@rollout/contracts';

export interface TagCell {
  /** Sorted. */
  absent: readonly string[];
  /** Each sorted, none contained in another, sorted by their text. */
  anyOf: readonly (readonly string[])[];
}

/** A side's candidates (in priority order) split into the tag cells where each decides; decider -1 is the implied rule. */
export function tagCells(
  candidates: readonly { index: number; tags: readonly string[] | undefined }[],
): { cell: TagCell; decider: number }[] {
  const cells: { cell: TagCell; decider: number }[] = [];
  const seen = new Set<string>();
  for (const { index, tags } of candidates) {
    const absent = [...seen].sort();
    if (!tags) {
      cells.push({ cell: { absent, anyOf: [] }, decider: index });
      return cells;
    }
    const fresh = [...new Set(tags)].filter((t) => !seen.has(t)).sort();
    if (fresh.length > 0) cells.push({ cell: { absent, anyOf: [fresh] }, decider: index });
    for (const t of fresh) seen.add(t);
  }
  cells.push({ cell: { absent: [...seen].sort(), anyOf: [] }, decider: -1 });
  return cells;
}

/** The tag sets in both cells, or undefined when there are none. */
export function intersectTagCells(a: TagCell, b: TagCell): TagCell | undefined {
  const absent = [...new Set([...a.absent, ...b.absent])].sort();
  const excluded = new Set(absent);
  const clauses: string[][] = [];
  for (const clause of [...a.anyOf, ...b.anyOf]) {
    const left = clause.filter((t) => !excluded.has(t));
    if (left.length === 0) return undefined;
    clauses.push(left);
  }
  // A clause that contains another is implied by it.
  const minimal = clauses.filter(
    (c, i) =>
      !clauses.some(
        (other, j) =>
          j !== i &&
          other.length <= c.length &&
          other.every((t) => c.includes(t)) &&
          (other.length < c.length || j < i),
      ),
  );
  return { absent, anyOf: minimal.sort((x, y) => (x.join(',') < y.join(',') ? -1 : 1)) };
}

export const tagCellKey = (cell: TagCell) =>
  `${cell.absent.join(',')}/${cell.anyOf.map((c) => c.join(',')).join(';')}`;

/** The wire form: absent when the cell holds every tag set. */
export function toTarget(cell: TagCell): { target?: AnalysisTarget } {
  if (cell.absent.length === 0 && cell.anyOf.length === 0) return {};
  return {
    target: {
      ...(cell.absent.length ? { tagsAbsent: [...cell.absent] } : {}),
      ...(cell.anyOf.length ? { anyTagOf: cell.anyOf.map((c) => [...c]) } : {}),
    },
  };
}
