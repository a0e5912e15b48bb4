/**
 * The one way coregate opens Redis (shared rate limits, single-use proof ids): a request
 * never waits for it — no offline queue, no retries, a short command timeout, so a
 * command that cannot run now rejects at once and the caller decides. The connection
 * itself is retried in the background: soon, then every 2 s at most.
 *
 * ioredis is loaded only here and only when Redis is configured: the default needs none of its code.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  readonly keyPrefix: string;
  /** How long one command may take before it counts as failed; 250 ms by default. */
  readonly commandTimeoutMs?: number;
}

export function openRedis(url: string, options: RedisConnectionOptions): Redis {
  const RedisClient = (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
  const commandTimeout = options.commandTimeoutMs ?? 250;
  return new RedisClient(url, {
    keyPrefix: options.keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout,
    connectTimeout: Math.max(1000, commandTimeout * 4),
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
}
