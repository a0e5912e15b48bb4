/** The current time, injected everywhere an expiry is decided so tests can move it. */
export interface Clock {
  now(): Date;
}
