import {
  PREVIEW_REPORT_TRANSITIONS,
  type PreviewConfigurationReport,
  type PreviewVerdict,
  type RuleCount,
  type RuleTransition,
} from '@rollout/contracts';

/** The implied rule's stand-in priority in stored rule counts (real priorities are 0-65535). */
export const IMPLIED_PRIORITY = -1;

/**
 * The exact totals of one configuration (experiment etag × live policy etag) over some
 * evaluations: the report's arithmetic (its rule transitions are its cohorts' outcomes,
 * `memberTransitions`). Totals of disjoint sets of evaluations add up (the
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
  /** Counts by the minute of the event time (its start, in ms since the epoch). */
  readonly minutes = new Map<number, BucketTally>();
  firstEventMs = Number.POSITIVE_INFINITY;
  lastEventMs = Number.NEGATIVE_INFINITY;

  /** Adds `count` events of one minute (any time in it) that live and the experiment decided so. */
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

  /** Adds the totals of other evaluations (disjoint from these: each evaluation is added once). */
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

  /** Widens the first and last event times to include [firstMs, lastMs]. */
  span(firstMs: number, lastMs: number): void {
    if (firstMs < this.firstEventMs) this.firstEventMs = firstMs;
    if (lastMs > this.lastEventMs) this.lastEventMs = lastMs;
  }
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** What one time bucket counts. */
export interface BucketTally {
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
}

/** A rule transition as stored: both deciding rules (priority IMPLIED_PRIORITY for implied) and actions. */
export interface TransitionTally {
  livePriority: number;
  liveAction: 'allow' | 'deny';
  experimentPriority: number;
  experimentAction: 'allow' | 'deny';
  count: number;
}

/** A stored rule as the report shows it. */
export function verdictOf(priority: number, action: string): PreviewVerdict {
  return {
    action: action as 'allow' | 'deny',
    rulePriority: priority === IMPLIED_PRIORITY ? null : priority,
    implied: priority === IMPLIED_PRIORITY,
  };
}

/** Stored rule counts as the report shows them: most frequent first, then by priority. */
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

/** The report's rule transitions: the PREVIEW_REPORT_TRANSITIONS most frequent cells (ties by rules, then actions), and how many are left out. */
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
