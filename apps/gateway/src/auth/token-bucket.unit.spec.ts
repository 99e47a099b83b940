import { TokenBuckets } from './token-bucket';

describe('TokenBuckets', () => {
  let now = 0;
  const buckets = new TokenBuckets(2, 3, () => now);

  it('allows a burst, then asks to wait, then refills at the sustained rate', () => {
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(1);
    now += 500; // half a second at 2/s: one token back
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBe(1);
  });

  it('keeps principals apart', () => {
    expect(buckets.take('b')).toBe(0);
  });
});
