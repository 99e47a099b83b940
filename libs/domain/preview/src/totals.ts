import {
  PREVIEW_REPORT_TRANSITIONS,
  type PreviewConfigurationReport,
  type PreviewVerdict,
  type RuleCount,
  type RuleTransition,
} from '@rollout/contracts';

/** Real priorities are 0-65535. */
export const IMPLIED_PRIORITY = -1;

/** Totals of disjoint evaluations add up, so the report is exact whatever the batching. */
export class ConfigurationTotals {
  evaluated = 0;
  changed = 0;
  allowToDeny = 0;
  denyToAllow = 0;
  unchangedAllow = 0;
  unchangedDeny = 0;
  readonly minutes = new Map<number, BucketTally>();
  firstEventMs = Number.POSITIVE_INFINITY;
  lastEventMs = Number.NEGATIVE_INFINITY;

  add(live: PreviewVerdict, experiment: PreviewVerdict, eventTimeMs: number, count = 1): void {
    this.evaluated += count;
    const minute = eventTimeMs - (eventTimeMs % MINUTE_MS);
    let bucket = this.minutes.get(minute);
    if (!bucket)
      this.minutes.set(
        minute,
        (bucket = { evaluated: 0, changed: 0, allowToDeny: 0, denyToAllow: 0 }),
      );
    bucket.evaluated += count;
    if (live.action === experiment.action) {
      if (live.action === 'allow') this.unchangedAllow += count;
      else this.unchangedDeny += count;
    } else {
      this.changed += count;
      bucket.changed += count;
      if (live.action === 'allow') {
        this.allowToDeny += count;
        bucket.allowToDeny += count;
      } else {
        this.denyToAllow += count;
        bucket.denyToAllow += count;
      }
    }
    this.span(eventTimeMs, eventTimeMs);
  }

  /** Each evaluation must be added once. */
  addAll(other: ConfigurationTotals): void {
    this.evaluated += other.evaluated;
    this.changed += other.changed;
    this.allowToDeny += other.allowToDeny;
    this.denyToAllow += other.denyToAllow;
    this.unchangedAllow += other.unchangedAllow;
    this.unchangedDeny += other.unchangedDeny;
    for (const [minute, theirs] of other.minutes) {
      const bucket = this.minutes.get(minute);
      if (!bucket) this.minutes.set(minute, { ...theirs });
      else {
        bucket.evaluated += theirs.evaluated;
        bucket.changed += theirs.changed;
        bucket.allowToDeny += theirs.allowToDeny;
        bucket.denyToAllow += theirs.denyToAllow;
      }
    }
    this.span(other.firstEventMs, other.lastEventMs);
  }

  span(firstMs: number, lastMs: number): void {
    if (firstMs < this.firstEventMs) this.firstEventMs = firstMs;
    if (lastMs > this.lastEventMs) this.lastEventMs = lastMs;
  }
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export interface BucketTally {
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
}

export interface TransitionTally {
  livePriority: number;
  liveAction: 'allow' | 'deny';
  experimentPriority: number;
  experimentAction: 'allow' | 'deny';
  count: number;
}

export function verdictOf(priority: number, action: string): PreviewVerdict {
  return {
    action: action as 'allow' | 'deny',
    rulePriority: priority === IMPLIED_PRIORITY ? null : priority,
    implied: priority === IMPLIED_PRIORITY,
  };
}

export function ruleCounts(
  rows: readonly { priority: number; action: string; count: number }[],
): RuleCount[] {
  return rows
    .map((row) => ({
      rulePriority: row.priority === IMPLIED_PRIORITY ? null : row.priority,
      implied: row.priority === IMPLIED_PRIORITY,
      action: row.action as 'allow' | 'deny',
      count: row.count,
    }))
    .sort(
      (a, b) =>
        b.count - a.count ||
        (a.rulePriority ?? -1) - (b.rulePriority ?? -1) ||
        a.action.localeCompare(b.action),
    );
}

/** Ties by rules, then actions. */
export function ruleTransitionsOf(
  tallies: readonly TransitionTally[],
): Pick<PreviewConfigurationReport, 'ruleTransitions' | 'ruleTransitionsOmitted'> {
  const cells: RuleTransition[] = tallies
    .map((t) => ({
      live: verdictOf(t.livePriority, t.liveAction),
      experiment: verdictOf(t.experimentPriority, t.experimentAction),
      count: t.count,
    }))
    .sort(
      (a, b) =>
        b.count - a.count ||
        (a.live.rulePriority ?? -1) - (b.live.rulePriority ?? -1) ||
        (a.experiment.rulePriority ?? -1) - (b.experiment.rulePriority ?? -1) ||
        a.live.action.localeCompare(b.live.action) ||
        a.experiment.action.localeCompare(b.experiment.action),
    );
  return {
    ruleTransitions: cells.slice(0, PREVIEW_REPORT_TRANSITIONS),
    ruleTransitionsOmitted: Math.max(0, cells.length - PREVIEW_REPORT_TRANSITIONS),
  };
}
