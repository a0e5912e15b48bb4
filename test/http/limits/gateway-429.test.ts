/**
 * `/core/*` → 429 TooManyRequests with `Retry-After` once a client has spent its
 * budget (COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE), counted per client after bearer
 * authentication; on the memory store and on Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Harness } from '../../support/harness.js';
import { assertEnvelope429, LIMIT_STORES, onlyLimits } from './limit-stores.js';

for (const store of LIMIT_STORES) {
  describe(`/core/* 429 per client (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await store.harness(onlyLimits({ COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '3' }));
    });
    after(() => h?.close());

    const accounts = (token: string | undefined, remoteAddress = '203.0.113.5') =>
      h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerId=nobody',
        remoteAddress,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });

    it('answers 429 with Retry-After and the envelope once the client has spent its budget, whatever the address', async () => {
      const token = await h.token(await h.client());
      for (let i = 0; i < 3; i += 1) assert.equal((await accounts(token, `203.0.113.${i}`)).statusCode, 404);
      assertEnvelope429(await accounts(token), 20);
      assertEnvelope429(await accounts(token, '198.51.100.1'), 20);
      const registration = await h.app.inject({
        method: 'POST',
        url: '/core/sessions',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: { customer: { customerKey: 'C-1001' }, registration: { customerId: 'x' } },
      });
      assertEnvelope429(registration, 20);
    });

    it('leaves other clients alone, even of the same platform', async () => {
      const first = await h.client({ platform: 'shared-platform' });
      const second = await h.client({ platform: 'shared-platform' });
      const [a, b] = [await h.token(first), await h.token(second)];
      for (let i = 0; i < 3; i += 1) await accounts(a);
      assert.equal((await accounts(a)).statusCode, 429);
      assert.equal((await accounts(b)).statusCode, 404);
    });

    it('admits the client again as its budget refills', async () => {
      const token = await h.token(await h.client());
      for (let i = 0; i < 3; i += 1) await accounts(token);
      assertEnvelope429(await accounts(token), 20);
      h.clock.advance(19);
      assertEnvelope429(await accounts(token), 1);
      h.clock.advance(1);
      assert.equal((await accounts(token)).statusCode, 404);
      assert.equal((await accounts(token)).statusCode, 429);
    });

    it('counts the refusals in coregate_rate_limited_total{scope="gateway_client"}', async () => {
      const metrics = await h.services.metrics.render();
      const refused = /^coregate_rate_limited_total\{scope="gateway_client"\} (\d+)$/m.exec(metrics);
      assert.ok(refused && Number(refused[1]) >= 4, metrics);
      assert.match(metrics, /^coregate_rate_limited_total\{scope="auth_failures_ip"\} 0$/m);
    });

    it('does not count requests without a valid token (they are refused before the limit)', async () => {
      for (let i = 0; i < 10; i += 1) assert.equal((await accounts(undefined)).statusCode, 401);
      const token = await h.token(await h.client());
      assert.equal((await accounts(token)).statusCode, 404);
    });
  });
}
