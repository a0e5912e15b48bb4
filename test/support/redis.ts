/**
 * The real Redis the Redis rate-limit store is tested against (as fastify's
 * rate-limit tests its Redis store against a real Redis). `COREGATE_TEST_REDIS_URL`
 * overrides the default 127.0.0.1:6379. Every test run writes under its own key
 * prefix and deletes it afterwards. Under CI an unreachable Redis fails the run
 * instead of skipping.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env['COREGATE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function reachable(): Promise<string | false> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return false;
  } catch (error) {
    return `Redis at ${REDIS_URL} is unreachable: ${(error as Error).message}`;
  } finally {
    redis.disconnect();
  }
}

/** Why the Redis tests are skipped here, or `false` when they run. */
export const redisSkip: string | false = process.env['CI'] === 'true' ? false : await reachable();

/** A key prefix no other test run (or test file) uses. */
export function uniqueRedisPrefix(what: string): string {
  return `coregate-test:${what}:${process.pid.toString(36)}${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (a test's leftovers). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
