import type { PreviewTimeBucket } from '@rollout/contracts';
import {
  TIME_BUCKET_SERIES,
  bucketLabels,
  bucketSizeLabel,
  timeBucketsOption,
} from './time-buckets';

const bucket = (startTime: string, width: 'MINUTE' | 'HOUR' = 'MINUTE'): PreviewTimeBucket => ({
  startTime,
  width,
  evaluated: 10,
  changed: 4,
  allowToDeny: 3,
  denyToAllow: 1,
});

describe('verdicts over time', () => {
  it('labels the bucket size', () => {
    expect(bucketSizeLabel([bucket('2026-11-28T21:50:00Z')])).toBe('per minute');
    expect(bucketSizeLabel([bucket('2026-11-28T10:00:00Z', 'HOUR')])).toBe('per hour');
    expect(
      bucketSizeLabel([bucket('2026-11-28T10:00:00Z', 'HOUR'), bucket('2026-11-28T21:50:00Z')]),
    ).toMatch(/^per hour, then per minute/);
  });

  it('draws stacked bars on one axis, one bar per bucket, labelled by minute not by second', () => {
    const buckets = [bucket('2026-11-28T21:50:00Z'), bucket('2026-11-28T21:51:00Z')];
    const option = timeBucketsOption(buckets);
    expect(option.yAxis).not.toBeInstanceOf(Array);
    expect(option.xAxis.data).toEqual(['21:50', '21:51']);
    expect(option.xAxis.axisLabel.hideOverlap).toBe(true);
    expect(option.series.map((s) => [s.type, s.stack, s.data])).toEqual([
      ['bar', 'events', [3, 3]],
      ['bar', 'events', [1, 1]],
      ['bar', 'events', [6, 6]],
    ]);
    // The legend is listed in the page, so the canvas keeps no legend to lay over an axis.
    expect(option.legend.show).toBe(false);
    expect(option.series.map((s) => [s.name, s.itemStyle.color])).toEqual(
      TIME_BUCKET_SERIES.map((series) => [series.name, series.color]),
    );
    expect(bucketLabels([bucket('2026-11-28T23:59:00Z'), bucket('2026-11-29T00:00:00Z')])).toEqual([
      '11-28 23:59',
      '11-29 00:00',
    ]);
  });
});
