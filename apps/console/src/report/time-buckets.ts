import type { PreviewTimeBucket } from '@rollout/contracts';

/** The colours of verdicts everywhere in the report: denied red, allowed green, unchanged grey. */
export const VERDICT_COLOURS = { deny: '#c62828', allow: '#2e7d32', unchanged: '#aab2bf' };

/** What one bar stands for: "per minute", "per hour", or both when old traffic is in hours. */
export function bucketSizeLabel(buckets: Pick<PreviewTimeBucket, 'width'>[]): string {
  const hours = buckets.some((b) => b.width === 'HOUR');
  const minutes = buckets.some((b) => b.width === 'MINUTE');
  if (hours && minutes) return 'per hour, then per minute for the last hours';
  return hours ? 'per hour' : 'per minute';
}

/** A bucket's x label: its UTC start "HH:MM", with the day when the buckets span several. */
export function bucketLabels(buckets: Pick<PreviewTimeBucket, 'startTime'>[]): string[] {
  const days = new Set(buckets.map((b) => b.startTime.slice(0, 10)));
  return buckets.map((b) => {
    const iso = new Date(b.startTime).toISOString();
    const time = iso.slice(11, 16);
    return days.size > 1 ? `${iso.slice(5, 10)} ${time}` : time;
  });
}

/**
 * Verdicts per bucket as stacked bars on one axis: allow → deny and deny → allow in the
 * verdicts' colours, the unchanged rest in grey, so a bar's height is the bucket's events.
 * The x labels skip what would overprint (a phone shows a few, a wide screen all).
 */
export function timeBucketsOption(buckets: PreviewTimeBucket[]) {
  const bar = (name: string, color: string, pick: (b: PreviewTimeBucket) => number) => ({
    name,
    type: 'bar',
    stack: 'events',
    itemStyle: { color },
    barMaxWidth: 48,
    data: buckets.map(pick),
  });
  return {
    animation: false,
    tooltip: { trigger: 'axis', renderMode: 'richText' },
    legend: { top: 0 },
    grid: { left: 8, right: 8, top: 36, bottom: 8, containLabel: true },
    xAxis: {
      type: 'category',
      data: bucketLabels(buckets),
      axisLabel: { hideOverlap: true },
      axisTick: { alignWithLabel: true },
    },
    yAxis: { type: 'value', name: 'events', minInterval: 1 },
    series: [
      bar('allow → deny', VERDICT_COLOURS.deny, (b) => b.allowToDeny),
      bar('deny → allow', VERDICT_COLOURS.allow, (b) => b.denyToAllow),
      bar('unchanged', VERDICT_COLOURS.unchanged, (b) => b.evaluated - b.changed),
    ],
  };
}
