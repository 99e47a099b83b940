export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** `failures` is 1 for the first. */
export function backoffMs(failures: number, { baseMs, maxMs }: Backoff): number {
  // Past 2^30 any base is beyond every cap; clamping keeps the product finite.
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
