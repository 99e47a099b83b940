import { mayRetry } from './retry';

const policy = { baseMs: 1_000, maxMs: 60_000, maxAttempts: 4 };

describe('retry bound', () => {
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
