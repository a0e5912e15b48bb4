/**
 * `POST /oauth2/token` and `/oauth2/revoke` → 429 with `Retry-After`, no-store and
 * an OAuth body (`invalid_request`, "too many requests, retry later"): per client
 * after authentication (COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE) and per source
 * address before it (COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basic, type Harness } from '../../support/harness.js';
import { assertOAuth429, LIMIT_STORES, onlyLimits } from './limit-stores.js';

const FORM = 'application/x-www-form-urlencoded';

function post(
  h: Harness,
  url: string,
  client: { id: string; secret: string },
  remoteAddress: string,
  payload = 'grant_type=client_credentials',
) {
  return h.app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { authorization: basic(client.id, client.secret), 'content-type': FORM },
    payload,
  });
}

for (const store of LIMIT_STORES) {
  describe(`POST /oauth2/token 429 per client (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await store.harness(onlyLimits({ COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '2' }));
    });
    after(() => h?.close());

    it('refuses a client over its budget from any address, with the OAuth body, and admits it again later', async () => {
      const client = await h.client();
      assert.equal((await post(h, '/oauth2/token', client, '203.0.113.1')).statusCode, 200);
      assert.equal((await post(h, '/oauth2/token', client, '203.0.113.2')).statusCode, 200);
      assertOAuth429(await post(h, '/oauth2/token', client, '203.0.113.3'), 30);
      assertOAuth429(await post(h, '/oauth2/revoke', client, '203.0.113.3', 'token=whatever'), 30);
      const other = await h.client();
      assert.equal(
        (await post(h, '/oauth2/token', other, '203.0.113.3')).statusCode,
        200,
        'another client is unaffected',
      );
      h.clock.advance(30);
      assert.equal((await post(h, '/oauth2/token', client, '203.0.113.1')).statusCode, 200);
    });

    it('checks the client budget only after authentication: wrong credentials stay invalid_client', async () => {
      const client = await h.client();
      for (let i = 0; i < 2; i += 1) await post(h, '/oauth2/token', client, '203.0.113.1');
      const wrong = await post(h, '/oauth2/token', { id: client.id, secret: 'not-the-secret' }, '203.0.113.1');
      assert.equal(wrong.statusCode, 400);
      assert.equal(wrong.json().error, 'invalid_client');
    });
  });

  describe(`POST /oauth2/token 429 per source address (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await store.harness(onlyLimits({ COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '3' }));
    });
    after(() => h?.close());

    it('refuses an address over its budget before authenticating, whatever the client; other addresses go on', async () => {
      const clients = [await h.client(), await h.client(), await h.client(), await h.client()];
      for (const client of clients.slice(0, 3))
        assert.equal((await post(h, '/oauth2/token', client, '192.0.2.10')).statusCode, 200);
      assertOAuth429(await post(h, '/oauth2/token', clients[3]!, '192.0.2.10'), 20);
      assertOAuth429(await post(h, '/oauth2/token', { id: 'cg_nobody', secret: 'x' }, '192.0.2.10'), 20);
      assert.equal((await post(h, '/oauth2/token', clients[3]!, '192.0.2.11')).statusCode, 200);
    });

    it('counts an IPv6 /64 as one address', async () => {
      const client = await h.client();
      for (let i = 1; i <= 3; i += 1)
        assert.equal((await post(h, '/oauth2/token', client, `2001:db8:5:6::${i}`)).statusCode, 200);
      assertOAuth429(await post(h, '/oauth2/token', client, '2001:db8:5:6:ffff::1'), 20);
      assert.equal((await post(h, '/oauth2/token', client, '2001:db8:5:7::1')).statusCode, 200);
    });
  });
}
