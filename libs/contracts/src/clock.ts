/**
 * Injected, never read ad hoc, so tests are exact; declared in the lowest lib that both the
 * domain libs and the platform import.
 */
export interface Clock {
  now(): Date;
}
