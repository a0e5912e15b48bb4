/**
 * The in-process rate-limit store: one number per active key in a `Map`, bounded
 * in size. Each process counts on its own, so N processes allow N times the
 * budget; set `COREGATE_REDIS_URL` to share the counts.
 */
import { gcraStep, type RateLimitDecision } from '../../domain/rate-limit.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';

export interface MemoryRateLimiterOptions {
  readonly clock: Clock;
  /**
   * Most keys held at once. Keys whose bucket is full again are dropped first; if
   * that is not enough the least recently hit keys go (they start over with a full
   * bucket), so a flood of distinct keys costs memory up to this bound and no more.
   */
  readonly maxKeys?: number;
}

const DEFAULT_MAX_KEYS = 100_000;

export class MemoryRateLimiter implements RateLimiter {
  /** key → theoretical arrival time (ms). Map order is recency: a hit re-inserts its key. */
  private readonly tats = new Map<string, number>();
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimiterOptions) {
    this.clock = options.clock;
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  }

  /** Keys currently held (for tests and metrics). */
  get size(): number {
    return this.tats.size;
  }

  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const step = gcraStep(this.tats.get(key), now, limit, windowSeconds);
    if (step.allowed) {
      this.tats.delete(key);
      this.tats.set(key, step.tat);
      if (this.tats.size > this.maxKeys) this.evict(now);
    }
    return Promise.resolve({
      allowed: step.allowed,
      remaining: step.remaining,
      retryAfterSeconds: step.retryAfterSeconds,
    });
  }

  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const step = gcraStep(this.tats.get(key), this.clock.now().getTime(), limit, windowSeconds);
    return Promise.resolve({
      allowed: step.allowed,
      remaining: step.remaining,
      retryAfterSeconds: step.retryAfterSeconds,
    });
  }

  /**
   * Takes over the answer another store gave for `key` (`counted`: a hit, else a peek), so that
   * counting here goes on from what the key had spent there. The bucket is rebuilt from the
   * answer: its `remaining`, or for a refusal its `retryAfterSeconds` (whole seconds, so up to
   * one second stricter than the other store).
   */
  adopt(key: string, limit: number, windowSeconds: number, decision: RateLimitDecision, counted: boolean): void {
    const now = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    const interval = windowMs / limit;
    const tat = decision.allowed
      ? now + windowMs - (decision.remaining + (counted ? 0 : 1)) * interval
      : now + windowMs - interval + decision.retryAfterSeconds * 1000;
    this.tats.delete(key);
    // A full bucket needs no entry.
    if (tat <= now) return;
    this.tats.set(key, tat);
    if (this.tats.size > this.maxKeys) this.evict(now);
  }

  async connect(): Promise<void> {}

  close(): Promise<void> {
    this.tats.clear();
    return Promise.resolve();
  }

  private evict(now: number): void {
    // A full sweep costs O(keys): at most once a second, so a flood of new keys
    // cannot make every request pay for it.
    if (now - this.lastSweepMs >= 1000) {
      this.lastSweepMs = now;
      for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
    }
    for (const key of this.tats.keys()) {
      if (this.tats.size <= this.maxKeys) break;
      this.tats.delete(key);
    }
  }
}
