/**
 * While Redis is away (its own redis-server, paused with SIGSTOP) budgets are counted in this
 * process's memory, going on from what Redis last answered for each key this process saw: an
 * address that spent the shared brute-force budget before the outage is not given a fresh one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { OwnRedisServer, redisServerSkip } from '../../support/redis-server.js';
import { scrape, sample } from '../ops/ops-requests.js';

const AUTH_FAILURES = 5;

describe('Redis paused after an address spent its brute-force budget', { skip: redisServerSkip() }, () => {
  const redis = new OwnRedisServer();
  let h: Harness;

  before(async () => {
    await redis.start();
    h = await createHarness(QUICKEST_BACKEND, {
      env: { COREGATE_REDIS_URL: redis.url, COREGATE_RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES) },
    });
    await h.services.rateLimiter.connect();
  });
  after(async () => {
    redis.resume();
    await h?.close();
    await redis.stop();
  });

  it('keeps refusing it in the per-process budget', async () => {
    const client = await h.client();
    const badAttempt = () =>
      h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: basic(client.id, 'wrong'), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
    const refused: boolean[] = [];
    for (let i = 0; i < AUTH_FAILURES + 1; i += 1) refused.push((await badAttempt()).statusCode === 429);
    assert.deepEqual(
      refused,
      [...Array<boolean>(AUTH_FAILURES).fill(false), true],
      'checked until the shared budget is spent',
    );

    redis.pause();
    const during: number[] = [];
    for (let i = 0; i < 10; i += 1) during.push((await badAttempt()).statusCode);
    assert.equal(sample(await scrape(h), 'coregate_rate_limit_store_local'), 1, 'counted in memory now');
    assert.deepEqual(during, Array<number>(10).fill(429), 'no fresh budget while Redis is away');
  });
});
