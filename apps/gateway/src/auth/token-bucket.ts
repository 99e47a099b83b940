/** In memory, so the limit is per gateway replica (documented); keys idle for a minute are forgotten. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when allowed, else the seconds until a token is available. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updated: now };
    bucket.tokens = Math.min(
      this.burst,
      bucket.tokens + ((now - bucket.updated) / 1000) * this.ratePerSecond,
    );
    bucket.updated = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 10_000) this.forgetIdle(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.ratePerSecond);
  }

  private forgetIdle(now: number) {
    for (const [key, bucket] of this.buckets)
      if (now - bucket.updated > 60_000) this.buckets.delete(key);
  }
}
