/** How an undelivered notification is retried: exponential back-off from `baseMs`, capped at `maxMs`. */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts in all, the first included; after the last one the notification is given up. */
  maxAttempts: number;
}

/** The wait after failed attempt number `attempt` (1 for the first): base, 2×base, 4×base… up to the cap. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}

/** Whether another attempt is allowed after `attempts` failed ones. */
export function mayRetry(policy: RetryPolicy, attempts: number): boolean {
  return attempts < policy.maxAttempts;
}
