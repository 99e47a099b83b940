/**
 * A tagged rule matches when the connection carries one of its tags, so the tag sets where a rule
 * decides are: "none of the tags of the tagged rules before it, and at least one of its own". A
 * cell keeps that form (absent tags, clauses "at least one of"); it is empty exactly when a
 * clause has no tag left outside the absent ones.
 */
import type { AnalysisTarget } from '@rollout/contracts';

export interface TagCell {
  absent: readonly string[];
  anyOf: readonly (readonly string[])[];
}

/** Decider -1 is the implied rule. */
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

export function toTarget(cell: TagCell): { target?: AnalysisTarget } {
  if (cell.absent.length === 0 && cell.anyOf.length === 0) return {};
  return {
    target: {
      ...(cell.absent.length ? { tagsAbsent: [...cell.absent] } : {}),
      ...(cell.anyOf.length ? { anyTagOf: cell.anyOf.map((c) => [...c]) } : {}),
    },
  };
}
