/**
 * Counting requests against a budget (the token bucket of `domain/rate-limit.ts`).
 * Implementations: in memory (one process, the default) and Redis (shared by
 * every process pointed at it). A store that cannot answer rejects; whether that
 * admits or refuses the request is the caller's decision (`app/request-throttle.ts`).
 */
import type { RateLimitDecision } from '../domain/rate-limit.js';

export interface RateLimiter {
  /**
   * Counts one request against `key`, allowed `limit` times per `windowSeconds`
   * (as a bucket refilling evenly). A refused request is not counted.
   */
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /** What {@link hit} would answer now, counting nothing. */
  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /** Connects a networked store; rejects if it cannot (the store keeps trying in the background). */
  connect(): Promise<void>;
  close(): Promise<void>;
}
