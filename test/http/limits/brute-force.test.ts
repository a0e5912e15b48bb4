/**
 * Brute-force protection of client authentication: failed authentications are
 * counted per source address (COREGATE_RATE_LIMIT_AUTH_FAILURES per
 * COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS). Once an address has spent that
 * budget its requests are refused with 429 before any secret is checked — right
 * credentials included — and it may try again only at the budget's pace; other
 * addresses are unaffected. Behind a trusted proxy the address is the caller's
 * (X-Forwarded-For), not the proxy's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basic, type Harness } from '../../support/harness.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../../src/domain/errors.js';
import { assertOAuth429, LIMIT_STORES, onlyLimits } from './limit-stores.js';

const LIMITS = onlyLimits({
  COREGATE_RATE_LIMIT_AUTH_FAILURES: '5',
  COREGATE_RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: '300',
});

function token(
  h: Harness,
  client: { id: string; secret: string },
  remoteAddress: string,
  headers: Record<string, string> = {},
) {
  return h.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    remoteAddress,
    headers: {
      authorization: basic(client.id, client.secret),
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    payload: 'grant_type=client_credentials',
  });
}

function assertInvalidClient(response: { statusCode: number; json(): unknown }): void {
  assert.equal(response.statusCode, 400);
  assert.deepEqual(response.json(), { error: 'invalid_client', error_description: CLIENT_AUTHENTICATION_FAILED });
}

for (const store of LIMIT_STORES) {
  describe(`client authentication brute force (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    let authentications = 0;
    before(async () => {
      h = await store.harness(LIMITS);
      // Counts how often a secret is actually checked.
      const authenticate = h.services.authenticator.authenticate.bind(h.services.authenticator);
      h.services.authenticator.authenticate = (credentials) => {
        authentications += 1;
        return authenticate(credentials);
      };
    });
    after(() => h?.close());

    it('slows an address down after repeated invalid_client, before checking any secret, while another address is unaffected', async () => {
      const client = await h.client();
      const guess = { id: client.id, secret: 'guess' };
      for (let i = 0; i < 5; i += 1) assertInvalidClient(await token(h, guess, '203.0.113.66'));

      const checkedBefore = authentications;
      // 5 failures per 300 s: the next one fits in 60 s.
      assertOAuth429(await token(h, guess, '203.0.113.66'), 60);
      assertOAuth429(await token(h, client, '203.0.113.66'), 60);
      assert.equal(authentications, checkedBefore, 'no secret was checked for the refused requests');

      assert.equal((await token(h, client, '198.51.100.20')).statusCode, 200, 'another address gets its token');
      assertInvalidClient(await token(h, guess, '198.51.100.20'));

      h.clock.advance(59);
      assertOAuth429(await token(h, guess, '203.0.113.66'), 1);
      h.clock.advance(1);
      assertInvalidClient(await token(h, guess, '203.0.113.66'));
      assertOAuth429(await token(h, guess, '203.0.113.66'), 60);
      h.clock.advance(60);
      assert.equal(
        (await token(h, client, '203.0.113.66')).statusCode,
        200,
        'the right secret works once the budget allows a try',
      );
    });

    it('does not count successful authentications, nor other errors after authentication', async () => {
      const client = await h.client();
      for (let i = 0; i < 20; i += 1) assert.equal((await token(h, client, '203.0.113.77')).statusCode, 200);
      for (let i = 0; i < 10; i += 1) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          remoteAddress: '203.0.113.77',
          headers: {
            authorization: basic(client.id, client.secret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: 'grant_type=password',
        });
        assert.equal(response.json().error, 'unsupported_grant_type');
      }
      assert.equal((await token(h, client, '203.0.113.77')).statusCode, 200);
    });

    it('counts revocation requests with bad credentials too', async () => {
      const guess = { id: 'cg_unknown', secret: 'guess' };
      for (let i = 0; i < 5; i += 1) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/oauth2/revoke',
          remoteAddress: '203.0.113.88',
          headers: {
            authorization: basic(guess.id, guess.secret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: 'token=x',
        });
        assertInvalidClient(response);
      }
      assertOAuth429(await token(h, await h.client(), '203.0.113.88'), 60);
    });
  });

  describe(`client authentication brute force behind a trusted proxy (${store.name})`, { skip: store.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await store.harness({ ...LIMITS, COREGATE_TRUST_PROXY: '10.0.0.0/8' });
    });
    after(() => h?.close());

    it("keeps a budget per caller address (X-Forwarded-For), not the proxy's", async () => {
      const client = await h.client();
      const guess = { id: client.id, secret: 'guess' };
      const via = (caller: string) => ({ 'x-forwarded-for': caller, 'x-forwarded-proto': 'https' });
      for (let i = 0; i < 5; i += 1) assertInvalidClient(await token(h, guess, '10.0.0.2', via('203.0.113.99')));
      assertOAuth429(await token(h, client, '10.0.0.2', via('203.0.113.99')), 60);
      assert.equal((await token(h, client, '10.0.0.2', via('198.51.100.99'))).statusCode, 200);
    });
  });
}
