import { reportTimeBuckets } from './time-buckets';
import { HOUR_MS, MINUTE_MS } from './totals';

const T0 = Date.parse('2025-06-01T00:00:00Z');
const minute = (startMs: number, evaluated: number, changed = 0) => ({
  startMs,
  widthMs: MINUTE_MS,
  evaluated,
  changed,
  allowToDeny: changed,
  denyToAllow: 0,
});
const hour = (startMs: number, evaluated: number) => ({
  ...minute(startMs, evaluated),
  widthMs: HOUR_MS,
});

describe('reportTimeBuckets', () => {
  it('rolls the minutes more than 6 hours before the last event into their hour, adding to the hour already rolled up', () => {
    const last = T0 + 8 * HOUR_MS;
    const buckets = reportTimeBuckets(
      [
        minute(last, 1),
        minute(T0 + 10 * MINUTE_MS, 2, 1),
        hour(T0, 5),
        minute(T0 + 59 * MINUTE_MS, 3),
        // Exactly 6 hours before the last event: still a minute.
        minute(last - 6 * HOUR_MS, 4),
        minute(last - 6 * HOUR_MS - MINUTE_MS, 6),
      ],
      last,
    );
    expect(buckets.map((b) => [b.startTime, b.width, b.evaluated, b.changed])).toEqual([
      ['2025-06-01T00:00:00.000Z', 'HOUR', 10, 1],
      ['2025-06-01T01:00:00.000Z', 'HOUR', 6, 0],
      ['2025-06-01T02:00:00.000Z', 'MINUTE', 4, 0],
      ['2025-06-01T08:00:00.000Z', 'MINUTE', 1, 0],
    ]);
  });

  it('answers the same whether the store rolled the old minutes up already or not', () => {
    const last = T0 + 7 * HOUR_MS;
    const minutes = [minute(T0, 1, 1), minute(T0 + MINUTE_MS, 2), minute(last, 3)];
    const rolled = [hour(T0, 3), minute(last, 3)];
    rolled[0].changed = rolled[0].allowToDeny = 1;
    expect(reportTimeBuckets(minutes, last)).toEqual(reportTimeBuckets(rolled, last));
  });

  it('puts an hour before the minute it starts with', () => {
    const last = T0 + 6 * HOUR_MS;
    expect(reportTimeBuckets([minute(T0, 1), hour(T0, 2)], last).map((b) => b.width)).toEqual([
      'HOUR',
      'MINUTE',
    ]);
  });
});
