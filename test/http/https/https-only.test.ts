/**
 * Token requests only over HTTPS (docs/behaviour.md#https): when plain HTTP is not the loopback
 * development set-up, a token endpoint request that did not arrive over HTTPS is
 * refused with `400 invalid_request` "HTTPS is required" before its credentials are
 * checked. Behind a trusted proxy, `X-Forwarded-Proto: https` from that proxy
 * counts as HTTPS; the same header from any other peer is ignored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { basic, createHarness, type Harness, type HarnessOptions } from '../../support/harness.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';

function assertHttpsRequired(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.equal(response.headers['content-type'], 'application/json;charset=UTF-8');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.deepEqual(response.json(), { error: 'invalid_request', error_description: 'HTTPS is required' });
}

function tokenRequest(
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

/** A harness whose app refuses plain HTTP token requests, as `serve` sets it up off loopback. */
async function httpsOnlyHarness(options: HarnessOptions = {}): Promise<Harness> {
  return createHarness(QUICKEST_BACKEND, { ...options, app: { httpsOnly: true } });
}

describe('token endpoint over plain HTTP, no trusted proxy (HOST=0.0.0.0 without TLS)', () => {
  let h: Harness;
  let client: { id: string; secret: string };
  let authentications = 0;
  before(async () => {
    h = await httpsOnlyHarness();
    client = await h.client();
    const authenticate = h.services.authenticator.authenticate.bind(h.services.authenticator);
    h.services.authenticator.authenticate = (credentials) => {
      authentications += 1;
      return authenticate(credentials);
    };
  });
  after(() => h?.close());

  it('refuses token and revocation requests with invalid_request "HTTPS is required", checking no credentials', async () => {
    assertHttpsRequired(await tokenRequest(h, client, '203.0.113.5'));
    assertHttpsRequired(await tokenRequest(h, { id: client.id, secret: 'wrong' }, '203.0.113.5'));
    assertHttpsRequired(
      await h.app.inject({
        method: 'POST',
        url: '/oauth2/revoke',
        remoteAddress: '203.0.113.5',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'token=x',
      }),
    );
    assert.equal(authentications, 0);
  });

  it('ignores X-Forwarded-Proto: no proxy is trusted', async () => {
    assertHttpsRequired(await tokenRequest(h, client, '203.0.113.5', { 'x-forwarded-proto': 'https' }));
    assertHttpsRequired(await tokenRequest(h, client, '127.0.0.1', { 'x-forwarded-proto': 'https' }));
  });

  it('still serves the discovery documents over HTTP', async () => {
    assert.equal(
      (await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json', remoteAddress: '203.0.113.5' })).statusCode,
      200,
    );
  });
});

describe('token endpoint behind listed trusted proxies (COREGATE_TRUST_PROXY=10.0.0.0/8)', () => {
  let h: Harness;
  let client: { id: string; secret: string };
  before(async () => {
    h = await httpsOnlyHarness({ env: { COREGATE_TRUST_PROXY: '10.0.0.0/8' } });
    client = await h.client();
  });
  after(() => h?.close());

  it('accepts X-Forwarded-Proto: https from a trusted proxy', async () => {
    const response = await tokenRequest(h, client, '10.1.2.3', {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.5',
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('refuses what the trusted proxy received over HTTP, or did not label', async () => {
    assertHttpsRequired(await tokenRequest(h, client, '10.1.2.3', { 'x-forwarded-proto': 'http' }));
    assertHttpsRequired(await tokenRequest(h, client, '10.1.2.3'));
    // The proxy appends: the last entry is what it saw.
    assertHttpsRequired(await tokenRequest(h, client, '10.1.2.3', { 'x-forwarded-proto': 'https, http' }));
  });

  it('ignores X-Forwarded-Proto: https from an untrusted peer', async () => {
    assertHttpsRequired(await tokenRequest(h, client, '203.0.113.5', { 'x-forwarded-proto': 'https' }));
    assertHttpsRequired(await tokenRequest(h, client, '127.0.0.1', { 'x-forwarded-proto': 'https' }));
  });
});

describe('token endpoint behind one trusted proxy (COREGATE_TRUST_PROXY=true)', () => {
  let h: Harness;
  before(async () => {
    h = await httpsOnlyHarness({ env: { COREGATE_TRUST_PROXY: 'true' } });
  });
  after(() => h?.close());

  it('takes the immediate peer for the proxy and believes its X-Forwarded-Proto', async () => {
    const client = await h.client();
    assert.equal((await tokenRequest(h, client, '192.0.2.44', { 'x-forwarded-proto': 'https' })).statusCode, 200);
    assertHttpsRequired(await tokenRequest(h, client, '192.0.2.44'));
  });
});

describe('token endpoint in loopback development (no TLS, no proxy, HOST=127.0.0.1)', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness(QUICKEST_BACKEND, { app: { httpsOnly: false } });
  });
  after(() => h?.close());

  it('answers plain HTTP', async () => {
    const response = await tokenRequest(h, await h.client(), '127.0.0.1');
    assert.equal(response.statusCode, 200, response.body);
  });
});
