/**
 * The rate-limit rule every limiter store applies: a token bucket of `limit`
 * requests that refills evenly over `windowSeconds`, kept as one number per key
 * (GCRA, the "generic cell rate algorithm"): the theoretical arrival time `tat`
 * of the next request. A burst of `limit` requests passes at once, then one
 * request every `windowSeconds / limit`. A key whose `tat` has passed holds a
 * full bucket, so it may be forgotten: memory stays bounded by the active keys.
 *
 * The Redis store runs the same steps in Lua (`adapters/rate-limit/redis-rate-limiter.ts`);
 * test/contract/rate-limiter.test.ts checks that both decide alike.
 */

/** What a limiter answers for one request. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Requests still allowed right now after this one (0 when refused). */
  readonly remaining: number;
  /** Whole seconds until a request would be allowed again; 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export interface GcraStep extends RateLimitDecision {
  /** The key's new theoretical arrival time (ms since the epoch), to store when allowed. */
  readonly tat: number;
  /** How long the stored value matters (ms); after that the key holds a full bucket. */
  readonly ttlMs: number;
}

/**
 * One request against a bucket: `storedTat` is the key's value (or `undefined`),
 * `nowMs` the current time. Allowed steps return the `tat` to store; refused ones
 * leave the stored value as it was.
 */
export function gcraStep(storedTat: number | undefined, nowMs: number, limit: number, windowSeconds: number): GcraStep {
  const windowMs = windowSeconds * 1000;
  const interval = windowMs / limit;
  // Float steps of windowMs/limit may overshoot the window by a rounding error; half an
  // interval (at most 1 ms) of slack keeps a burst of exactly `limit` admitted.
  const slack = Math.min(interval / 2, 1);
  const tat = Math.max(storedTat ?? nowMs, nowMs);
  const next = tat + interval;
  if (next - nowMs > windowMs + slack) {
    const waitMs = next - windowMs - nowMs;
    return {
      allowed: false,
      remaining: 0,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      tat,
      ttlMs: Math.ceil(tat - nowMs),
    };
  }
  const remaining = Math.max(0, Math.floor((windowMs - (next - nowMs) + slack) / interval));
  return { allowed: true, remaining, retryAfterSeconds: 0, tat: next, ttlMs: Math.max(1, Math.ceil(next - nowMs)) };
}
