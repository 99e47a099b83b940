/**
 * The decision diagram behind the analysis, exact with the engine's semantics
 * (docs/firewall-matching.md): sub-regions over the match fields' dimensions, each refinement
 * computed once per distinct (level, candidates), equal sub-regions merged.
 */
import { LABEL_FIELDS, LINE_FIELDS } from '../match-fields';
import { Cells, DIMENSIONS, EVERY_LABEL_SET, Keys, LINES, PreparedRule } from './prepared-rules';
import { bridgeUnreachable, Interval, intervalsKey, normalize, UNREACHABLE } from './space';
import { intersectTagCells, TagCell, tagCellKey, tagCells } from './tags';

/** About a second of CPU here, so a pathological policy cannot hold the service's event loop for long. */
export const ANALYSIS_WORK_LIMIT = 500_000;

export interface SubRegion {
  id: number;
  keys: Keys;
  cells: Cells;
  target: TagCell;
  live: number;
  experiment: number;
}

export class WorkLimitExceeded extends Error {}

export class DirectionAnalysis {
  private readonly memo = Array.from(
    { length: DIMENSIONS + 1 },
    () => new Map<string, SubRegion[]>(),
  );
  private readonly interned = new Map<string, SubRegion>();

  constructor(
    readonly rules: readonly PreparedRule[],
    private readonly keep: (live: number, experiment: number) => boolean,
    private readonly onPair: (live: number, experiment: number) => void,
    private readonly needSecond: boolean,
    private readonly budget: { work: number },
  ) {}

  run(): SubRegion[] {
    return this.refine(
      0,
      this.truncate(
        0,
        this.rules.map((_, i) => i),
      ),
    );
  }

  private spend(amount: number) {
    this.budget.work += amount;
    if (this.budget.work > ANALYSIS_WORK_LIMIT) throw new WorkLimitExceeded();
  }

  /** Drops each side's candidates after its first rule that matches everything from `level` on. */
  private truncate(level: number, candidates: number[]): number[] {
    const stopped = [false, false];
    return candidates.filter((i) => {
      const rule = this.rules[i];
      if (stopped[rule.side]) return false;
      if (rule.universalFrom[level]) stopped[rule.side] = true;
      return true;
    });
  }

  private refine(level: number, candidates: number[]): SubRegion[] {
    if (this.needSecond && !candidates.some((i) => this.rules[i].side === 1)) return [];
    this.spend(candidates.length);
    const key = candidates.join(',');
    const known = this.memo[level].get(key);
    if (known) return known;
    const result =
      level === DIMENSIONS
        ? this.leaf(candidates)
        : level < LINES
          ? this.split(level, candidates)
          : this.splitLabels(level, candidates);
    this.memo[level].set(key, result);
    return result;
  }

  private split(level: number, candidates: number[]): SubRegion[] {
    const { name, field } = LINE_FIELDS[level];
    const { end, dimension } = field;
    const always: number[] = [];
    const events: { at: bigint; rule: number; delta: 1 | -1 }[] = [];
    for (const i of candidates) {
      const rule = this.rules[i];
      if (rule.full[name]) always.push(i);
      else
        for (const { first, last } of rule.keys[name]!) {
          events.push({ at: first, rule: i, delta: 1 });
          if (last + 1n < end) events.push({ at: last + 1n, rule: i, delta: -1 });
        }
    }
    const addresses = dimension === 'source' || dimension === 'destination';
    if (addresses) {
      // A segment boundary on each side of the unreachable keys, so that no group holds only them.
      events.push(
        { at: UNREACHABLE.first, rule: -1, delta: 1 },
        { at: UNREACHABLE.last + 1n, rule: -1, delta: -1 },
      );
    }
    events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    this.spend(events.length + 1);

    type Group = { candidates: number[]; intervals: Interval[] };
    const groups = new Map<string, Group>();
    // The rules in force are `always` plus the active ones, so the active set alone names the
    // group: the candidate list is built once per distinct active set, not once per segment.
    const groupOfActive = new Map<string, Group>();
    const active = new Map<number, number>();
    const addSegment = (first: bigint, last: bigint) => {
      if (addresses && first === UNREACHABLE.first) return;
      const activeRules = [...active.keys()].sort((a, b) => a - b);
      const activeKey = activeRules.join(',');
      let group = groupOfActive.get(activeKey);
      if (!group) {
        const next = this.truncate(level + 1, mergeSorted(always, activeRules));
        const groupKey = next.join(',');
        group = groups.get(groupKey);
        if (!group) groups.set(groupKey, (group = { candidates: next, intervals: [] }));
        groupOfActive.set(activeKey, group);
      }
      group.intervals.push({ first, last });
    };
    let start = 0n;
    for (let e = 0; e < events.length;) {
      const at = events[e].at;
      if (at > start) {
        addSegment(start, at - 1n);
        start = at;
      }
      for (; e < events.length && events[e].at === at; e++) {
        const { rule, delta } = events[e];
        if (rule < 0) continue;
        const count = (active.get(rule) ?? 0) + delta;
        if (count === 0) active.delete(rule);
        else active.set(rule, count);
      }
    }
    addSegment(start, end - 1n);

    const merged = new Map<number, { sub: SubRegion; intervals: Interval[] }>();
    for (const group of groups.values()) {
      for (const sub of this.refine(level + 1, group.candidates)) {
        const entry = merged.get(sub.id);
        if (entry) entry.intervals.push(...group.intervals);
        else merged.set(sub.id, { sub, intervals: [...group.intervals] });
      }
    }
    this.spend(merged.size);
    return [...merged.values()].map(({ sub, intervals }) => {
      const keys = {
        ...sub.keys,
        [name]: addresses ? bridgeUnreachable(normalize(intervals)) : normalize(intervals),
      };
      return this.intern(keys, sub.cells, sub.target, sub.live, sub.experiment);
    });
  }

  private splitLabels(level: number, candidates: number[]): SubRegion[] {
    const { name } = LABEL_FIELDS[level - LINES];
    const regions: SubRegion[] = [];
    for (const { cell, rules } of this.labelCells(level, EVERY_LABEL_SET, candidates)) {
      for (const sub of this.refine(level + 1, this.truncate(level + 1, rules)))
        regions.push(
          this.intern(
            sub.keys,
            { ...sub.cells, [name]: cell },
            sub.target,
            sub.live,
            sub.experiment,
          ),
        );
    }
    this.spend(regions.length + 1);
    return regions;
  }

  /**
   * Splits `cell` until every candidate matches all of a part or none of it. A side's candidates
   * after one that matches all the rest of the space do not matter, and are not split on.
   */
  private labelCells(
    level: number,
    cell: TagCell,
    candidates: number[],
  ): { cell: TagCell; rules: number[] }[] {
    this.spend(candidates.length);
    const index = level - LINES;
    const stopped = [false, false];
    const rules: number[] = [];
    for (const i of candidates) {
      const rule = this.rules[i];
      if (stopped[rule.side]) continue;
      const labels = rule.labels[index];
      if (labels) {
        if (labels.every((label) => cell.absent.includes(label))) continue;
        const surely = cell.anyOf.some((clause) => clause.every((label) => labels.includes(label)));
        if (!surely) {
          const inside = intersectTagCells(cell, { absent: [], anyOf: [labels] })!;
          const outside = intersectTagCells(cell, { absent: labels, anyOf: [] })!;
          return [
            ...this.labelCells(level, inside, candidates),
            ...this.labelCells(level, outside, candidates),
          ];
        }
      }
      rules.push(i);
      if (rule.universalFrom[level + 1]) stopped[rule.side] = true;
    }
    return [{ cell, rules }];
  }

  /** The tag cells of both sides, intersected: each non-empty intersection has one deciding rule per side. */
  private leaf(candidates: number[]): SubRegion[] {
    const side = (s: 0 | 1) =>
      candidates
        .filter((i) => this.rules[i].side === s)
        .map((i) => ({ index: i, tags: this.rules[i].tags }));
    const regions: SubRegion[] = [];
    for (const live of tagCells(side(0))) {
      for (const experiment of tagCells(side(1))) {
        const cell = intersectTagCells(live.cell, experiment.cell);
        if (!cell) continue;
        this.onPair(live.decider, experiment.decider);
        if (this.keep(live.decider, experiment.decider)) {
          regions.push(this.intern({}, {}, cell, live.decider, experiment.decider));
        }
      }
    }
    this.spend(regions.length + 1);
    return regions;
  }

  private intern(
    keys: Keys,
    cells: Cells,
    target: TagCell,
    live: number,
    experiment: number,
  ): SubRegion {
    const dims = [
      ...LINE_FIELDS.map(({ name }) => {
        const line = keys[name];
        return line ? intervalsKey(line) : '';
      }),
      ...LABEL_FIELDS.map(({ name }) => {
        const labelCell = cells[name];
        return labelCell ? tagCellKey(labelCell) : '';
      }),
    ];
    const key = `${dims.join('|')}|${tagCellKey(target)}|${live}|${experiment}`;
    let region = this.interned.get(key);
    if (!region) {
      region = { id: this.interned.size, keys, cells, target, live, experiment };
      this.interned.set(key, region);
    }
    return region;
  }
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length)
    out.push(j >= b.length || (i < a.length && a[i] < b[j]) ? a[i++] : b[j++]);
  return out;
}
