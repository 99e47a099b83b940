/** Injected so tests are exact; here, the lowest lib both domain and platform import. */
export interface Clock {
  now(): Date;
}
