import type { PreviewVerdict, RuleCount } from '@rollout/contracts';

/** The implied rule's stand-in priority in stored rule counts (real priorities are 0-65535). */
export const IMPLIED_PRIORITY = -1;

/** A deciding rule as stored: its priority (IMPLIED_PRIORITY for the implied rule) and action. */
export interface RuleTally {
  priority: number;
  action: 'allow' | 'deny';
  count: number;
}

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * Deciding-rule counts, merged by (priority, action). The engine hands out one shared verdict
 * object per rule, so counting by object identity costs no key building on the hot path.
 */
export function ruleTallies(counts: ReadonlyMap<PreviewVerdict, number>): RuleTally[] {
  const merged = new Map<string, RuleTally>();
  for (const [verdict, count] of counts) {
    const priority = verdict.rulePriority ?? IMPLIED_PRIORITY;
    const key = `${priority}/${verdict.action}`;
    const tally = merged.get(key);
    if (tally) tally.count += count;
    else merged.set(key, { priority, action: verdict.action, count });
  }
  return [...merged.values()];
}

/**
 * The exact totals of one configuration (experiment etag × live policy etag) over some
 * evaluations: the report's arithmetic. Totals of disjoint sets of evaluations add up (the
 * store adds each transaction's totals to what it holds), so the report is exact whatever the
 * batching, as long as each evaluation is added once.
 */
export class ConfigurationTotals {
  evaluated = 0;
  changed = 0;
  allowToDeny = 0;
  denyToAllow = 0;
  unchangedAllow = 0;
  unchangedDeny = 0;
  /** Deciding rules, by verdict (see ruleTallies). */
  readonly liveRules = new Map<PreviewVerdict, number>();
  readonly experimentRules = new Map<PreviewVerdict, number>();
  firstEventMs = Number.POSITIVE_INFINITY;
  lastEventMs = Number.NEGATIVE_INFINITY;

  add(live: PreviewVerdict, experiment: PreviewVerdict, eventTimeMs: number): void {
    this.evaluated++;
    if (live.action === experiment.action) {
      if (live.action === 'allow') this.unchangedAllow++;
      else this.unchangedDeny++;
    } else {
      this.changed++;
      if (live.action === 'allow') this.allowToDeny++;
      else this.denyToAllow++;
    }
    bump(this.liveRules, live);
    bump(this.experimentRules, experiment);
    if (eventTimeMs < this.firstEventMs) this.firstEventMs = eventTimeMs;
    if (eventTimeMs > this.lastEventMs) this.lastEventMs = eventTimeMs;
  }
}

/** Stored rule counts as the report shows them: most frequent first, then by priority. */
export function ruleCounts(rows: readonly { priority: number; action: string; count: number }[]): RuleCount[] {
  return rows
    .map((row) => ({
      rulePriority: row.priority === IMPLIED_PRIORITY ? null : row.priority,
      implied: row.priority === IMPLIED_PRIORITY,
      action: row.action as 'allow' | 'deny',
      count: row.count,
    }))
    .sort((a, b) => b.count - a.count || (a.rulePriority ?? -1) - (b.rulePriority ?? -1) || a.action.localeCompare(b.action));
}
