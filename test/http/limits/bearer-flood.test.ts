/**
 * Refusals before authentication on `/core/*` (no bearer token, an invalid one) are
 * limited per source address (COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE): once an
 * address has spent that budget it gets 429 before any token is verified — a valid
 * token included — while other addresses are unaffected; every refusal is counted in
 * the metrics. On the memory store and on Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Harness } from '../../support/harness.js';
import { assertEnvelope429, LIMIT_STORES, onlyLimits } from './limit-stores.js';

const LIMITS = onlyLimits({ COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: '6' });
const JUNK = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

for (const store of LIMIT_STORES) {
  describe(`/core/* refusals before authentication, per address (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    let verifications = 0;
    before(async () => {
      h = await store.harness(LIMITS);
      // Counts how often a token signature is actually checked.
      const verify = h.services.keyring.verify.bind(h.services.keyring);
      h.services.keyring.verify = (token, now) => {
        verifications += 1;
        return verify(token, now);
      };
    });
    after(() => h?.close());

    const accounts = (remoteAddress: string, token?: string) =>
      h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerId=nobody',
        remoteAddress,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });

    it("answers 429 before verifying once an address has spent its budget, and admits it again at the budget's pace", async () => {
      const valid = await h.token(await h.client());
      for (let i = 0; i < 3; i += 1) assert.equal((await accounts('203.0.113.40', JUNK)).statusCode, 401);
      for (let i = 0; i < 3; i += 1) assert.equal((await accounts('203.0.113.40')).statusCode, 401);

      const verifiedBefore = verifications;
      // 6 per minute: one more every 10 s.
      assertEnvelope429(await accounts('203.0.113.40', JUNK), 10);
      assertEnvelope429(await accounts('203.0.113.40', valid), 10);
      assert.equal(verifications, verifiedBefore, 'no token was verified for the refused requests');

      assert.equal((await accounts('198.51.100.40', valid)).statusCode, 404, 'another address is served');
      h.clock.advance(10);
      assert.equal(
        (await accounts('203.0.113.40', valid)).statusCode,
        404,
        'a valid token is served once the budget allows',
      );
    });

    it("charges only refusals of the bearer check: a valid token's requests, 404s included, cost nothing", async () => {
      const valid = await h.token(await h.client());
      for (let i = 0; i < 20; i += 1) assert.equal((await accounts('203.0.113.41', valid)).statusCode, 404);
      assert.equal((await accounts('203.0.113.41', JUNK)).statusCode, 401);
    });

    it('counts the refusals in coregate_rate_limited_total{scope="bearer_failures_ip"}', async () => {
      for (let i = 0; i < 10; i += 1) await accounts('203.0.113.42', JUNK);
      const metrics = await h.services.metrics.render();
      const refused = /^coregate_rate_limited_total\{scope="bearer_failures_ip"\} (\d+)$/m.exec(metrics);
      assert.ok(refused && Number(refused[1]) >= 6, metrics);
    });
  });
}
