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

/** The bars' series, bottom up, with their colours: drawn by the chart and listed in its legend. */
export const TIME_BUCKET_SERIES = [
  { name: 'allow → deny', color: VERDICT_COLOURS.deny },
  { name: 'deny → allow', color: VERDICT_COLOURS.allow },
  { name: 'unchanged', color: VERDICT_COLOURS.unchanged },
] as const;

/** A bar's height is the bucket's events; x labels skip what would overprint. */
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
    // The legend is the page's (ChangesOverTime): on the canvas, a phone's width wraps it onto
    // the axis name; in the page it wraps above the chart instead.
    legend: { show: false },
    grid: { left: 8, right: 8, top: 28, bottom: 8, containLabel: true },
    xAxis: {
      type: 'category',
      data: bucketLabels(buckets),
      axisLabel: { hideOverlap: true },
      axisTick: { alignWithLabel: true },
    },
    yAxis: { type: 'value', name: 'events', minInterval: 1 },
    series: [
      bar(TIME_BUCKET_SERIES[0].name, TIME_BUCKET_SERIES[0].color, (b) => b.allowToDeny),
      bar(TIME_BUCKET_SERIES[1].name, TIME_BUCKET_SERIES[1].color, (b) => b.denyToAllow),
      bar(TIME_BUCKET_SERIES[2].name, TIME_BUCKET_SERIES[2].color, (b) => b.evaluated - b.changed),
    ],
  };
}
