/**
 * Redis configured (COREGATE_REDIS_URL) but unreachable: after a few failed calls the
 * store's breaker counts every budget in this process's memory (docs/behaviour.md#rate-limits:
 * per-process budgets rather than none — the brute-force budget keeps working), the switch is
 * logged once as an error and exposed as a metric, and the failed calls are counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';

describe('rate limits with Redis unreachable (per-process budgets)', () => {
  let h: Harness;
  const lines: Array<{ level: number; msg: string; suppressedSinceLast?: number }> = [];
  before(async () => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    h = await createHarness(QUICKEST_BACKEND, {
      logger,
      env: {
        // Port 1 on loopback: nothing listens there.
        COREGATE_REDIS_URL: 'redis://127.0.0.1:1',
        COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '2',
        COREGATE_RATE_LIMIT_AUTH_FAILURES: '2',
      },
    });
  });
  after(() => h?.close());

  it('counts budgets in process memory, logs the switch once as an error, and counts the failures', async () => {
    const client = await h.client();
    const token = await h.token(client);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const bad = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: basic(client.id, 'wrong'), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      statuses.push(bad.statusCode);
    }
    assert.deepEqual(statuses, [400, 400, 429, 429, 429], 'the brute-force budget holds without Redis');
    const gateway: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      gateway.push(
        (
          await h.app.inject({
            method: 'GET',
            url: '/core/accounts?customerId=nobody',
            headers: { authorization: `Bearer ${token}` },
          })
        ).statusCode,
      );
    }
    assert.deepEqual(gateway, [404, 404, 429, 429], 'the gateway budget, per process');
    assert.ok(h.services.throttle.limiterFailures >= 3, `failures counted: ${h.services.throttle.limiterFailures}`);
    const switches = lines.filter((line) => line.msg.startsWith('rate-limit store (COREGATE_REDIS_URL) failing'));
    assert.equal(switches.length, 1, 'one line for the switch');
    assert.equal(switches[0]!.level, 50);
    const metrics = await h.services.metrics.render();
    const exported = /^coregate_rate_limiter_failures_total (\d+)$/m.exec(metrics);
    assert.ok(exported, 'the failures are a metric');
    assert.equal(Number(exported[1]), h.services.throttle.limiterFailures);
    assert.match(metrics, /^coregate_rate_limit_store_local 1$/m);
  });
});
