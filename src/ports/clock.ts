/** The current time, injected everywhere an expiry is decided so tests can move it. */
export interface Clock {
  now(): Date;
}

/**
 * Options for an lru-cache whose entries expire on `clock` (so tests with a fake
 * clock can expire them): `perf` reads the clock on every check (`ttlResolution: 0`,
 * no cached "now"), and an entry is stale once `seconds` have passed — lru-cache
 * keeps an entry while `now - start <= ttl`, hence one millisecond less. With 0
 * seconds there is no TTL: the caller then refreshes on every read (`forceRefresh`).
 */
export function expiryOnClock(clock: Clock, seconds: number): { ttl?: number; ttlResolution: 0; perf: { now(): number } } {
  const perf = { now: () => clock.now().getTime() };
  return seconds > 0 ? { ttl: Math.round(seconds * 1000) - 1, ttlResolution: 0, perf } : { ttlResolution: 0, perf };
}
