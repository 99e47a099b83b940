import { mayRetry, retryDelayMs } from './retry';

const policy = { baseMs: 1_000, maxMs: 60_000, maxAttempts: 4 };

describe('retry back-off', () => {
  it('doubles from the base and stops growing at the cap', () => {
    expect([1, 2, 3, 4, 6, 7, 50].map((n) => retryDelayMs(policy, n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 32_000, 60_000, 60_000,
    ]);
  });

  it('allows attempts up to the bound, the first included', () => {
    expect([1, 2, 3, 4, 5].map((n) => mayRetry(policy, n))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
