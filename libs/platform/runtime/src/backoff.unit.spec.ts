import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it('doubles from the base and stops growing at the cap', () => {
    const steps = { baseMs: 1_000, maxMs: 60_000 };
    expect([1, 2, 3, 4, 6, 7, 50, 10_000].map((n) => backoffMs(n, steps))).toEqual([
      1_000, 2_000, 4_000, 8_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('waits the base before any failure is counted', () => {
    expect(backoffMs(0, { baseMs: 100, maxMs: 5_000 })).toBe(100);
  });

  it('never waits more than the cap, even below the base', () => {
    expect(backoffMs(1, { baseMs: 1_000, maxMs: 250 })).toBe(250);
  });
});
