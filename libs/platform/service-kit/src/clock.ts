/** Time, injected under CLOCK and never read ad hoc, so a test can give a service its own. */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');
export const systemClock: Clock = { now: () => new Date() };
