/**
 * Redis configured (COREGATE_REDIS_URL) but unreachable: coregate fails open — every
 * request is admitted without a rate limit, and the outage is logged as an error
 * (at most every 10 s, with how many failures were not logged) and counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';

describe('rate limits with Redis unreachable (fail open)', () => {
  let h: Harness;
  const lines: Array<{ level: number; msg: string; suppressedSinceLast?: number }> = [];
  before(async () => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    h = await createHarness(QUICKEST_BACKEND, {
      logger,
      env: {
        // Port 1 on loopback: nothing listens there.
        COREGATE_REDIS_URL: 'redis://127.0.0.1:1',
        COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '1',
        COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '1',
        COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '1',
        COREGATE_RATE_LIMIT_AUTH_FAILURES: '1',
      },
    });
  });
  after(() => h?.close());

  it('admits every request, logs the outage as an error without flooding the log, and counts the failures', async () => {
    const client = await h.client();
    for (let i = 0; i < 5; i += 1) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: basic(client.id, client.secret), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(response.statusCode, 200, response.body);
      const bad = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: basic(client.id, 'wrong'), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(bad.json().error, 'invalid_client');
    }
    const token = await h.token(client);
    for (let i = 0; i < 5; i += 1) {
      const response = await h.app.inject({ method: 'GET', url: '/core/accounts?customerId=nobody', headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.statusCode, 404);
    }
    assert.ok(h.services.throttle.limiterFailures >= 20, `failures counted: ${h.services.throttle.limiterFailures}`);
    const failures = lines.filter((line) => line.msg.startsWith('rate limiter failed'));
    assert.equal(failures.length, 1, 'one error line within 10 s');
    assert.equal(failures[0]!.level, 50);
    h.clock.advance(10);
    await h.token(client);
    const again = lines.filter((line) => line.msg.startsWith('rate limiter failed'));
    assert.equal(again.length, 2);
    assert.ok(again[1]!.suppressedSinceLast! >= 19);
    assert.ok(lines.some((line) => line.level === 50 && /rate-limit store \(COREGATE_REDIS_URL\) unreachable/.test(line.msg)));
    const exported = /^coregate_rate_limiter_failures_total (\d+)$/m.exec(await h.services.metrics.render());
    assert.ok(exported, 'the failures are a metric');
    assert.equal(Number(exported[1]), h.services.throttle.limiterFailures);
  });
});
