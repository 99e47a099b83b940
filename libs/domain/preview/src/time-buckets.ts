import { PREVIEW_MINUTE_BUCKETS_HOURS, type PreviewTimeBucket } from '@rollout/contracts';
import { type BucketTally, HOUR_MS, MINUTE_MS } from './totals';

export interface CountedBucket extends BucketTally {
  startMs: number;
  /** MINUTE_MS or HOUR_MS. */
  widthMs: number;
}

/** Rolls older minutes up here: the store does so only at housekeeping, a backtest never. */
export function reportTimeBuckets(
  buckets: Iterable<CountedBucket>,
  lastEventMs: number,
): PreviewTimeBucket[] {
  const cutoff = lastEventMs - PREVIEW_MINUTE_BUCKETS_HOURS * HOUR_MS;
  const rolled = new Map<string, CountedBucket>();
  for (const bucket of buckets) {
    const { startMs, widthMs } =
      bucket.widthMs === MINUTE_MS && bucket.startMs < cutoff
        ? { startMs: bucket.startMs - (bucket.startMs % HOUR_MS), widthMs: HOUR_MS }
        : bucket;
    const key = `${startMs}/${widthMs}`;
    const known = rolled.get(key);
    if (!known) {
      rolled.set(key, { ...bucket, startMs, widthMs });
      continue;
    }
    known.evaluated += bucket.evaluated;
    known.changed += bucket.changed;
    known.allowToDeny += bucket.allowToDeny;
    known.denyToAllow += bucket.denyToAllow;
  }
  return [...rolled.values()]
    .sort((x, y) => x.startMs - y.startMs || y.widthMs - x.widthMs)
    .map((b) => ({
      startTime: new Date(b.startMs).toISOString(),
      width: b.widthMs === MINUTE_MS ? 'MINUTE' : 'HOUR',
      evaluated: b.evaluated,
      changed: b.changed,
      allowToDeny: b.allowToDeny,
      denyToAllow: b.denyToAllow,
    }));
}
