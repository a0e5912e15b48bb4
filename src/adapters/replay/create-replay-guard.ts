/** The configured store of single-use proof identifiers: Redis when COREGATE_REDIS_URL is set, else the database. */
import type { Logger } from 'pino';
import { atMostEvery, OUTAGE_LOG_INTERVAL_MS } from '../logging/at-most-every.js';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { Queryable } from '../store/database.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';
import { RedisReplayGuard } from './redis-replay-guard.js';
import { SqlReplayGuard } from './sql-replay-guard.js';

/** Consecutive failed Redis calls before checks are refused at once (as the rate limiter's breaker). */
const REDIS_BREAKER_FAILURES = 3;
/** How long checks are refused at once before one call probes Redis again. */
const REDIS_BREAKER_HALF_OPEN_MS = 5000;

export function createReplayGuard(config: Config, database: Queryable, logger: Logger, clock: Clock): ReplayGuard {
  if (config.redisUrl === undefined) return new SqlReplayGuard(database);
  return new RedisReplayGuard({
    url: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    failures: REDIS_BREAKER_FAILURES,
    halfOpenAfterMs: REDIS_BREAKER_HALF_OPEN_MS,
    // One line per outage interval, however many proofs are refused meanwhile.
    onFailure: atMostEvery(OUTAGE_LOG_INTERVAL_MS, clock, (suppressedSinceLast, error: unknown) => {
      logger.error(
        { err: { message: error instanceof Error ? error.message : String(error) }, suppressedSinceLast },
        'proof replay store (COREGATE_REDIS_URL) failing: client assertions and DPoP proofs are refused (503) until it answers again',
      );
    }),
    onStateChange: (state) => {
      if (state === 'open')
        logger.error(
          'proof replay store (COREGATE_REDIS_URL) down: client assertions and DPoP proofs are refused at once (503) until a probe finds it answering',
        );
      else logger.warn('proof replay store (COREGATE_REDIS_URL) answers again: proofs are checked again');
    },
  });
}
