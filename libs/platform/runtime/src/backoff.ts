/** Exponential back-off: `baseMs` and `maxMs` of the waits between failed attempts. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/**
 * The wait after `failures` failed attempts in a row (1 for the first): base, 2×base, 4×base…
 * up to `maxMs`. The one back-off of the services: background loops, a batch consumer's
 * retries, durable deliveries.
 */
export function backoffMs(failures: number, { baseMs, maxMs }: Backoff): number {
  // Past 2^30 any base is beyond every cap; clamping keeps the product finite.
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
