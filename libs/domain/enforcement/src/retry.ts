/** How an undelivered notification is retried: exponential back-off from `baseMs`, capped at `maxMs` (`backoffMs` of `@rollout/platform/runtime`). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts in all, the first included; after the last one the notification is given up. */
  maxAttempts: number;
}

/** Whether another attempt is allowed after `attempts` failed ones. */
export function mayRetry(policy: RetryPolicy, attempts: number): boolean {
  return attempts < policy.maxAttempts;
}
