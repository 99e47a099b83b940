import { PublishSchedule } from './schedule';

describe('PublishSchedule', () => {
  it('lets everything go at once without a rate or a replay speed', () => {
    const schedule = new PublishSchedule({});
    expect([0, 0, 0].map(() => schedule.delayMs(1000, 5))).toEqual([0, 0, 0]);
  });

  it('spaces events to the rate cap', () => {
    const schedule = new PublishSchedule({ ratePerSecond: 100 });
    expect([
      schedule.delayMs(0, undefined),
      schedule.delayMs(0, undefined),
      schedule.delayMs(5, undefined),
      schedule.delayMs(100, undefined),
    ]).toEqual([0, 10, 15, 0]);
  });

  it("replays the records' own spacing, divided by the speed, from the first record", () => {
    const original = new PublishSchedule({ speed: 1 });
    expect(original.delayMs(500, 1_000_000)).toBe(0);
    expect(original.delayMs(600, 1_002_000)).toBe(1900);
    const tenTimes = new PublishSchedule({ speed: 10 });
    tenTimes.delayMs(0, 1_000_000);
    expect(tenTimes.delayMs(0, 1_002_000)).toBe(200);
    // A record older than the first, or without a time, does not wait.
    expect(tenTimes.delayMs(0, 999_000)).toBe(0);
    expect(tenTimes.delayMs(0, undefined)).toBe(0);
  });

  it('takes the later of the two when both apply', () => {
    const schedule = new PublishSchedule({ speed: 1, ratePerSecond: 1 });
    expect(schedule.delayMs(0, 0)).toBe(0);
    expect(schedule.delayMs(0, 10)).toBe(1000);
    expect(schedule.delayMs(0, 5000)).toBe(5000);
  });
});
