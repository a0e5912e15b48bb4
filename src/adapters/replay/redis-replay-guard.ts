/**
 * Single-use proof identifiers in Redis (`SET key NX PXAT`), when COREGATE_REDIS_URL is
 * configured: one round trip, expiring by itself. Redis is then the only record of which
 * identifiers were used, so while it fails no other store can tell a replay from a first
 * use: the check is refused ({@link ReplayCheckUnavailable}, a 503 with `Retry-After`), never
 * guessed. Behind a circuit breaker (cockatiel, as the rate limiter's): a Redis that is
 * down or paused costs `failures` calls their command timeout, then every check is refused
 * at once until a probe after `halfOpenAfterMs` finds Redis answering again.
 * See docs/operations.md, "Redis".
 */
import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  handleAll,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { Redis } from 'ioredis';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { ReplayCheckUnavailable, type ReplayGuard } from '../../ports/replay-guard.js';
import { openRedis } from '../redis/redis-connection.js';

export interface RedisReplayGuardOptions {
  readonly url: string;
  readonly keyPrefix: string;
  readonly commandTimeoutMs?: number;
  /** Consecutive failed calls that open the breaker; 3 unless set. */
  readonly failures?: number;
  /** How long checks are refused at once before one call probes Redis again; 5000 ms unless set. */
  readonly halfOpenAfterMs?: number;
  /** Told of every failed Redis call (not of the refusals while the breaker is open). */
  readonly onFailure?: (error: unknown) => void;
  /** `open`: checks are refused at once from now on; `closed`: Redis answers again. */
  readonly onStateChange?: (state: 'open' | 'closed') => void;
}

export class RedisReplayGuard implements ReplayGuard {
  private readonly redis: Redis;
  private readonly policy: CircuitBreakerPolicy;
  private readonly retryAfterSeconds: number;

  constructor(private readonly options: RedisReplayGuardOptions) {
    this.redis = openRedis(options.url, {
      keyPrefix: `${options.keyPrefix}proof:`,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    });
    // Failures are reported per call (onFailure); the connection retries in the background.
    this.redis.on('error', () => {});
    const halfOpenAfter = options.halfOpenAfterMs ?? 5000;
    this.retryAfterSeconds = Math.max(1, Math.ceil(halfOpenAfter / 1000));
    this.policy = circuitBreaker(handleAll, { halfOpenAfter, breaker: new ConsecutiveBreaker(options.failures ?? 3) });
    this.policy.onBreak(() => options.onStateChange?.('open'));
    this.policy.onReset(() => options.onStateChange?.('closed'));
  }

  async firstUse(key: string, until: Date, now: Date, _deadline?: DatabaseDeadline): Promise<boolean> {
    // While a probe is out, the other checks do not queue behind it: refused at once.
    if (this.policy.state === CircuitState.HalfOpen)
      throw new ReplayCheckUnavailable('the replay store is being probed', this.retryAfterSeconds);
    try {
      return await this.policy.execute(async () => {
        try {
          if (this.redis.status === 'wait') await this.redis.connect();
          const answer = await this.redis.set(key, '1', 'PXAT', Math.max(until.getTime(), now.getTime() + 1), 'NX');
          return answer === 'OK';
        } catch (error) {
          this.options.onFailure?.(error);
          throw error;
        }
      });
    } catch (error) {
      const reason =
        error instanceof BrokenCircuitError
          ? 'the replay store (Redis) is failing'
          : `the replay store (Redis) failed: ${error instanceof Error ? error.message : String(error)}`;
      throw new ReplayCheckUnavailable(reason, this.retryAfterSeconds);
    }
  }

  close(): Promise<void> {
    this.redis.disconnect(false);
    return Promise.resolve();
  }
}
