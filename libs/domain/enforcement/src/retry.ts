/** How an undelivered notification is retried: exponential back-off from `baseMs`, capped at `maxMs` (`backoffMs` of `@rollout/platform/runtime`). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** The first included. */
  maxAttempts: number;
}

export function mayRetry(policy: RetryPolicy, attempts: number): boolean {
  return attempts < policy.maxAttempts;
}
