import type { RetryPolicy } from '@rollout/domain/enforcement';
import { BackgroundLoop, type TurnOutcome } from '@rollout/platform/runtime';
import { BACKGROUND_MAX_FAILURE_DELAY_MS, Config } from './config';

/**
 * The retries of a durable delivery (the on_end outbox, the adapter session closes): back-off
 * from the settings, and a loop that drains the due rows every poll interval.
 */
export function deliveryRetries(
  name: string,
  config: Config,
  maxAttempts: number,
  turn: () => Promise<TurnOutcome | void>,
): { policy: RetryPolicy; loop: BackgroundLoop } {
  return {
    policy: {
      baseMs: config.ENFORCEMENT_RETRY_BASE_MS,
      maxMs: config.ENFORCEMENT_RETRY_MAX_MS,
      maxAttempts,
    },
    loop: new BackgroundLoop({
      name,
      turn,
      intervalMs: config.ENFORCEMENT_RETRY_POLL_INTERVAL_MS,
      firstTurnAfterInterval: true,
      maxFailureDelayMs: BACKGROUND_MAX_FAILURE_DELAY_MS,
    }),
  };
}
