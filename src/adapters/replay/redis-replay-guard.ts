/**
 * Single-use proof identifiers in Redis (`SET key NX PXAT`), when COREGATE_REDIS_URL is
 * configured: one round trip, expiring by itself. Should Redis fail, the database decides
 * instead (`fallback`): proofs keep working, and a key recorded in Redis just before it
 * failed could be accepted once more there — a window as long as the outage and the
 * proofs' own lifetimes, which the fallback's log line reports.
 */
import type { Redis } from 'ioredis';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';
import { openRedis } from '../redis/redis-connection.js';

export interface RedisReplayGuardOptions {
  readonly url: string;
  readonly keyPrefix: string;
  readonly fallback: ReplayGuard;
  /** Told of every Redis failure that made the fallback decide. */
  readonly onFallback: (error: unknown) => void;
  readonly commandTimeoutMs?: number;
}

export class RedisReplayGuard implements ReplayGuard {
  private readonly redis: Redis;

  constructor(private readonly options: RedisReplayGuardOptions) {
    this.redis = openRedis(options.url, {
      keyPrefix: `${options.keyPrefix}proof:`,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    });
    // Failures are reported per call (onFallback); the connection retries in the background.
    this.redis.on('error', () => {});
  }

  async firstUse(key: string, until: Date, now: Date, deadline?: DatabaseDeadline): Promise<boolean> {
    try {
      if (this.redis.status === 'wait') await this.redis.connect();
      const answer = await this.redis.set(key, '1', 'PXAT', Math.max(until.getTime(), now.getTime() + 1), 'NX');
      return answer === 'OK';
    } catch (error) {
      this.options.onFallback(error);
      return this.options.fallback.firstUse(key, until, now, deadline);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect(false);
    await this.options.fallback.close();
  }
}
