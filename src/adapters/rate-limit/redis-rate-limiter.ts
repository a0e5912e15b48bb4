/**
 * The shared rate-limit store: one Redis string per active key holding its
 * theoretical arrival time, read and written by one Lua script (atomic, one round
 * trip), expiring when the bucket is full again. Every coregate process pointed at
 * the same Redis shares the budgets.
 *
 * The time comes from the caller's clock (the processes' clocks, kept by NTP), so
 * that the same contract suite with a fake clock runs on both stores; a skew of a
 * few milliseconds between processes moves a budget by as much and no more.
 *
 * Requests never wait for Redis: no offline queue, a short command timeout, no
 * retries — a command that cannot run now rejects at once, and the caller decides
 * (coregate admits the request: `app/request-throttle.ts`). The connection itself
 * is retried in the background.
 */
import type { Redis } from 'ioredis';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import { openRedis } from '../redis/redis-connection.js';

/** `domain/rate-limit.ts` `gcraStep`, in Lua. ARGV: now (ms), limit, window (s), 1 to count / 0 to peek. */
const GCRA_SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3]) * 1000
local count = tonumber(ARGV[4])
local interval = window / limit
local slack = math.min(interval / 2, 1)
local tat = now
local stored = redis.call('GET', KEYS[1])
if stored then tat = math.max(tonumber(stored), now) end
local nxt = tat + interval
if nxt - now > window + slack then
  return {0, 0, string.format('%.3f', nxt - window - now)}
end
if count == 1 then
  redis.call('SET', KEYS[1], string.format('%.3f', nxt), 'PX', string.format('%d', math.max(1, math.ceil(nxt - now))))
end
return {1, math.floor((window - (nxt - now) + slack) / interval), '0'}
`;

type ScriptReply = [allowed: number, remaining: number, waitMs: string];

interface WithGcra {
  coregateGcra(key: string, now: number, limit: number, windowSeconds: number, count: 0 | 1): Promise<ScriptReply>;
}

export interface RedisRateLimiterOptions {
  /** `redis://` or `rediss://` URL (may hold a password: never logged). */
  readonly url: string;
  readonly clock: Clock;
  /** Prefix of every key, so that several installations (or test runs) can share one Redis. */
  readonly keyPrefix: string;
  /** How long one command may take before it counts as failed. */
  readonly commandTimeoutMs?: number;
  /** Called once when the connection is lost (or never came up), and once when it is back. */
  readonly onConnectionChange?: (state: 'down' | 'up', error?: Error) => void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & WithGcra;
  private readonly clock: Clock;
  private down = false;

  constructor(options: RedisRateLimiterOptions) {
    this.clock = options.clock;
    this.redis = openRedis(options.url, {
      keyPrefix: options.keyPrefix,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    }) as Redis & WithGcra;
    this.redis.defineCommand('coregateGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
    const notify = options.onConnectionChange;
    this.redis.on('error', (error: Error) => {
      if (this.down) return;
      this.down = true;
      notify?.('down', error);
    });
    this.redis.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      notify?.('up');
    });
  }

  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.run(key, limit, windowSeconds, 1);
  }

  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.run(key, limit, windowSeconds, 0);
  }

  async connect(): Promise<void> {
    if (this.redis.status === 'ready') return;
    if (this.redis.status === 'wait') {
      await this.redis.connect();
      return;
    }
    // Connecting or reconnecting already: wait for the outcome of this attempt.
    await new Promise<void>((resolve, reject) => {
      const ready = () => (this.redis.off('error', failed), resolve());
      const failed = (error: Error) => (this.redis.off('ready', ready), reject(error));
      this.redis.once('ready', ready);
      this.redis.once('error', failed);
    });
  }

  close(): Promise<void> {
    // disconnect, not quit: quit would wait for (or even open) a connection that may never come.
    this.redis.disconnect(false);
    return Promise.resolve();
  }

  private async run(key: string, limit: number, windowSeconds: number, count: 0 | 1): Promise<RateLimitDecision> {
    // First use without connect(): connect now (a failure rejects, like any command).
    if (this.redis.status === 'wait') await this.redis.connect();
    const [allowed, remaining, waitMs] = await this.redis.coregateGcra(
      key,
      this.clock.now().getTime(),
      limit,
      windowSeconds,
      count,
    );
    if (allowed === 1) return { allowed: true, remaining: Number(remaining), retryAfterSeconds: 0 };
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(Number(waitMs) / 1000)) };
  }
}
