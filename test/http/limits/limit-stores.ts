/**
 * The rate-limit stores the HTTP limit suites run on, and the assertions every
 * 429 must pass. The database is not what they test: one backend will do.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness, type HarnessOptions } from '../../support/harness.js';
import { deleteRedisPrefix, REDIS_URL, redisSkip, uniqueRedisPrefix } from '../../support/redis.js';

export interface LimitStore {
  readonly name: 'memory' | 'redis';
  readonly skip: string | false;
  /** A harness whose rate limits are `env`, on this store. */
  harness(env: Record<string, string>, options?: Omit<HarnessOptions, 'env'>): Promise<Harness>;
}

export const LIMIT_STORES: readonly LimitStore[] = [
  { name: 'memory', skip: false, harness: (env, options) => createHarness(QUICKEST_BACKEND, { ...options, env }) },
  {
    name: 'redis',
    skip: redisSkip,
    async harness(env, options) {
      const prefix = uniqueRedisPrefix('http');
      const h = await createHarness(QUICKEST_BACKEND, {
        ...options,
        env: { COREGATE_REDIS_URL: REDIS_URL, COREGATE_REDIS_KEY_PREFIX: prefix, ...env },
      });
      return {
        ...h,
        async close() {
          await h.close();
          await deleteRedisPrefix(prefix);
        },
      };
    },
  },
];

/** Every limit off except those in `env` (the harness's defaults are merely high). */
export function onlyLimits(env: Record<string, string>): Record<string, string> {
  return {
    COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '0',
    COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '0',
    COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '0',
    COREGATE_RATE_LIMIT_AUTH_FAILURES: '0',
    COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: '0',
    ...env,
  };
}

/** 429 with `Retry-After` and the TooManyRequests envelope (docs/behaviour.md#rate-limits). */
export function assertEnvelope429(response: LightMyRequestResponse, retryAfter: number): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.equal(response.headers['retry-after'], String(retryAfter));
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json<{ data: { requestId?: unknown } }>();
  assert.deepEqual(body, {
    name: 'TooManyRequests',
    className: 'too-many-requests',
    message: 'too many requests, retry later',
    code: 429,
    // Every envelope carries a reason code and its request id.
    data: { retryAfter, reason: 'rate_limited', requestId: response.headers['x-request-id'] },
  });
}

/** 429 with `Retry-After`, no-store, and an OAuth body with a code of docs/behaviour.md#token-errors. */
export function assertOAuth429(response: LightMyRequestResponse, retryAfter: number): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.equal(response.headers['retry-after'], String(retryAfter));
  assert.equal(response.headers['content-type'], 'application/json;charset=UTF-8');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['pragma'], 'no-cache');
  assert.deepEqual(response.json(), { error: 'invalid_request', error_description: 'too many requests, retry later' });
}
