/** The configured rate-limit store and the log lines of its failures (README "Rate limits"). */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import { atMostEvery, OUTAGE_LOG_INTERVAL_MS } from '../logging/at-most-every.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { BreakerRateLimiter } from './breaker-rate-limiter.js';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { registerRateLimitStoreMetrics } from './rate-limit-metrics.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

/** Consecutive failed Redis calls before budgets are counted in process memory. */
const REDIS_BREAKER_FAILURES = 3;
/** How long budgets stay in memory before one call probes Redis again. */
const REDIS_BREAKER_HALF_OPEN_MS = 5000;

export interface RateLimiterOptions {
  /** Hears of each failed Redis call (answered from this process's memory). */
  readonly onStoreFailure?: (error: unknown) => void;
  /** Where the Redis store's `coregate_rate_limit_store_local` gauge is registered. */
  readonly registry?: Registry;
}

/**
 * The configured rate-limit store. Redis connects lazily (a CLI command that never
 * limits anything never connects); the server calls `connect()` at start. Redis sits
 * behind a breaker that counts in this process's memory while Redis fails
 * (`breaker-rate-limiter.ts`).
 */
export function createRateLimiter(
  config: Config,
  clock: Clock,
  logger: Logger,
  options: RateLimiterOptions = {},
): RateLimiter {
  if (config.redisUrl === undefined) return new MemoryRateLimiter({ clock });
  const redis = new RedisRateLimiter({
    url: config.redisUrl,
    clock,
    keyPrefix: config.redisKeyPrefix,
    onConnectionChange: (state, error) => {
      if (state === 'down') {
        logger.error(
          { err: { message: error?.message } },
          'rate-limit store (COREGATE_REDIS_URL) connection lost: reconnecting',
        );
      } else {
        logger.info('rate-limit store (COREGATE_REDIS_URL) connected again');
      }
    },
  });
  const breaker = new BreakerRateLimiter(redis, new MemoryRateLimiter({ clock }), {
    failures: REDIS_BREAKER_FAILURES,
    halfOpenAfterMs: REDIS_BREAKER_HALF_OPEN_MS,
    onFailure: options.onStoreFailure,
    onStateChange: (state, cause) => {
      if (state === 'local') {
        const reason = cause instanceof Error ? cause.message : undefined;
        logger.error(
          { reason },
          "rate-limit store (COREGATE_REDIS_URL) failing: budgets are counted in this process's memory until it answers again",
        );
      } else {
        logger.warn('rate-limit store (COREGATE_REDIS_URL) answers again: budgets are shared again');
      }
    },
  });
  if (options.registry) registerRateLimitStoreMetrics(options.registry, breaker);
  return breaker;
}

/** Logs a failing limiter call at most once per outage interval (an outage would otherwise log every request). */
export function limiterErrorLog(logger: Logger, clock: Clock): (error: unknown) => void {
  return atMostEvery(OUTAGE_LOG_INTERVAL_MS, clock, (suppressedSinceLast, error: unknown) => {
    logger.error(
      { err: { message: error instanceof Error ? error.message : String(error) }, suppressedSinceLast },
      'rate limiter failed: request admitted without a rate limit',
    );
  });
}
