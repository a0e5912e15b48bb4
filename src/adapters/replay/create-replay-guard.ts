/** The configured store of single-use proof identifiers: Redis when COREGATE_REDIS_URL is set, else the database. */
import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import type { Queryable } from '../store/database.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';
import { RedisReplayGuard } from './redis-replay-guard.js';
import { SqlReplayGuard } from './sql-replay-guard.js';

export function createReplayGuard(config: Config, database: Queryable, logger: Logger): ReplayGuard {
  const sql = new SqlReplayGuard(database);
  if (config.redisUrl === undefined) return sql;
  let lastLogMs = Number.NEGATIVE_INFINITY;
  return new RedisReplayGuard({
    url: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    fallback: sql,
    onFallback: (error) => {
      // At most one line every 10 s during an outage.
      if (Date.now() - lastLogMs < 10_000) return;
      lastLogMs = Date.now();
      logger.error(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'proof replay store (COREGATE_REDIS_URL) failing: the database records used proof ids until it answers again',
      );
    },
  });
}
