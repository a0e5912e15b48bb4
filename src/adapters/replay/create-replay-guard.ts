/** The configured store of single-use proof identifiers: Redis when COREGATE_REDIS_URL is set, else the database. */
import type { Logger } from 'pino';
import type { Clock } from '../../ports/clock.js';
import { atMostEvery, OUTAGE_LOG_INTERVAL_MS } from '../logging/at-most-every.js';
import type { Config } from '../../config/config.js';
import type { Queryable } from '../store/database.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';
import { RedisReplayGuard } from './redis-replay-guard.js';
import { SqlReplayGuard } from './sql-replay-guard.js';

export function createReplayGuard(config: Config, database: Queryable, logger: Logger, clock: Clock): ReplayGuard {
  const sql = new SqlReplayGuard(database);
  if (config.redisUrl === undefined) return sql;
  return new RedisReplayGuard({
    url: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    fallback: sql,
    // One line per outage interval, however many proofs fall back meanwhile.
    onFallback: atMostEvery(OUTAGE_LOG_INTERVAL_MS, clock, (suppressedSinceLast, error: unknown) => {
      logger.error(
        { err: { message: error instanceof Error ? error.message : String(error) }, suppressedSinceLast },
        'proof replay store (COREGATE_REDIS_URL) failing: the database records used proof ids until it answers again',
      );
    }),
  });
}
