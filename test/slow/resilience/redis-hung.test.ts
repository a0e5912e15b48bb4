/**
 * A hung Redis (its own redis-server, paused with SIGSTOP): after a few slow calls
 * the rate-limit store's breaker opens and budgets are counted in this process's
 * memory — latency back to normal, the brute-force budget still refusing — with one
 * log line and a metric for the switch; once Redis answers again, budgets are shared again.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { OwnRedisServer, redisServerSkip } from '../../support/redis-server.js';
import { scrape, sample } from '../../http/ops/ops-requests.js';

const AUTH_FAILURES = 5;

describe('Redis hung (SIGSTOP): budgets counted per process behind a breaker', { skip: redisServerSkip() }, () => {
  const redis = new OwnRedisServer();
  let h: Harness;
  const lines: Array<{ level: number; msg: string }> = [];

  before(async () => {
    await redis.start();
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    h = await createHarness(QUICKEST_BACKEND, {
      logger,
      env: { COREGATE_REDIS_URL: redis.url, COREGATE_RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES) },
    });
    await h.services.rateLimiter.connect();
  });
  after(async () => {
    await h?.close();
    await redis.stop();
  });

  it('keeps latency normal, refuses spent brute-force budgets, reports the switch once, and shares again after', async () => {
    const client = await h.client();
    const token = await h.token(client);
    const accounts = () =>
      h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerId=nobody',
        headers: { authorization: `Bearer ${token}` },
      });
    assert.equal((await accounts()).statusCode, 404);

    redis.pause();
    const paused = performance.now();
    const timings: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const t0 = performance.now();
      assert.equal((await accounts()).statusCode, 404);
      timings.push(performance.now() - t0);
    }
    const sorted = [...timings].sort((a, b) => a - b);
    console.log(`redis hung: 40 gateway requests, median ${sorted[20]!.toFixed(1)} ms`);
    // Counted, not timed: only the calls before the breaker opened (and one probe every 5 s, should
    // this machine be slow enough to reach one) waited for Redis; each such call is a failure.
    const failures = sample(await scrape(h), 'coregate_rate_limiter_failures_total');
    const probes = Math.floor((performance.now() - paused) / 5000);
    assert.ok(failures >= 3 && failures <= 3 + probes, `${failures} calls waited for Redis`);

    let refused = 0;
    let checked = 0;
    for (let i = 0; i < 30; i += 1) {
      const bad = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: basic(client.id, 'wrong'), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      if (bad.statusCode === 429) refused += 1;
      else checked += 1;
    }
    console.log(
      `redis hung: 30 bad-credential attempts, ${checked} checked, ${refused} refused (budget ${AUTH_FAILURES})`,
    );
    assert.equal(checked, AUTH_FAILURES, 'the brute-force budget holds while Redis is out');

    const switches = lines.filter((line) => line.msg.startsWith('rate-limit store (COREGATE_REDIS_URL) failing'));
    assert.equal(switches.length, 1, 'one line for the switch');
    assert.equal(sample(await scrape(h), 'coregate_rate_limit_store_local'), 1);
    assert.ok(sample(await scrape(h), 'coregate_rate_limiter_failures_total') >= 1);

    redis.resume();
    // The breaker probes Redis again 5 s after it opened.
    for (const deadline = performance.now() + 8000; performance.now() < deadline;) {
      await accounts();
      if (sample(await scrape(h), 'coregate_rate_limit_store_local') === 0) break;
      await sleep(200);
    }
    assert.equal(sample(await scrape(h), 'coregate_rate_limit_store_local'), 0, 'shared again');
    assert.equal(
      lines.filter((line) => line.msg.startsWith('rate-limit store (COREGATE_REDIS_URL) answers again')).length,
      1,
    );
  });
});
