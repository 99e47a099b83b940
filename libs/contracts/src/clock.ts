/**
 * Time, given to whatever reads it and never read ad hoc, so tests are exact. Declared here, the
 * lowest lib that both the domain libs and the platform may import; services inject it under
 * `CLOCK` (`@rollout/platform/service-kit`).
 */
export interface Clock {
  now(): Date;
}
