/** The configured rate-limit store and the log lines of its failures (README "Rate limits"). */
import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

/**
 * The configured rate-limit store. Redis connects lazily (a CLI command that never
 * limits anything never connects); the server calls `connect()` at start.
 */
export function createRateLimiter(config: Config, clock: Clock, logger: Logger): RateLimiter {
  if (config.redisUrl === undefined) return new MemoryRateLimiter({ clock });
  return new RedisRateLimiter({
    url: config.redisUrl,
    clock,
    keyPrefix: config.redisKeyPrefix,
    onConnectionChange: (state, error) => {
      if (state === 'down') {
        logger.error({ err: { message: error?.message } }, 'rate-limit store (COREGATE_REDIS_URL) unreachable: requests are admitted without rate limits until it is back');
      } else {
        logger.info('rate-limit store (COREGATE_REDIS_URL) reachable again');
      }
    },
  });
}

/** Logs a failing limiter call at most every 10 s (an outage would otherwise log every request). */
export function limiterErrorLog(logger: Logger, clock: Clock): (error: unknown) => void {
  let lastMs = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (error) => {
    const now = clock.now().getTime();
    if (now - lastMs < 10_000) {
      suppressed += 1;
      return;
    }
    lastMs = now;
    logger.error(
      { err: { message: error instanceof Error ? error.message : String(error) }, suppressedSinceLast: suppressed },
      'rate limiter failed: request admitted without a rate limit',
    );
    suppressed = 0;
  };
}
