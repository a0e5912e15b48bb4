/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414) and
 * `GET /.well-known/jwks.json`: what a client library or a resource server needs
 * to find the endpoints and verify access tokens on its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { assertTokenError, clientCredentials } from './oauth-requests.js';

/** Members of private or symmetric JWKs (RFC 7517/7518): none may be published. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

for (const backend of BACKENDS) {
  describe(`GET /.well-known/* (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    const getJwks = async (): Promise<JSONWebKeySet> => {
      const response = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      return response.json<JSONWebKeySet>();
    };

    it('publishes the authorization server metadata', async () => {
      const response = await h.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const metadata = response.json();
      assert.equal(metadata.issuer, TEST_ISSUER);
      assert.equal(metadata.token_endpoint, `${TEST_ISSUER}/oauth2/token`);
      assert.equal(metadata.jwks_uri, `${TEST_ISSUER}/.well-known/jwks.json`);
      assert.equal(metadata.revocation_endpoint, `${TEST_ISSUER}/oauth2/revoke`);
      assert.deepEqual([...metadata.grant_types_supported].sort(), ['client_credentials', 'refresh_token']);
      // CONTRACT §11: every enabled method, client_secret_basic first (today's default).
      assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'private_key_jwt']);
      assert.deepEqual(
        metadata.revocation_endpoint_auth_methods_supported,
        metadata.token_endpoint_auth_methods_supported,
      );
      assert.deepEqual(metadata.scopes_supported, ['core/main']);
    });

    it('advertises endpoints that are served here', async () => {
      const metadata = (await h.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      const path = (url: string) => new URL(url).pathname;
      assertTokenError(await h.app.inject({ method: 'POST', url: path(metadata.token_endpoint) }), 'invalid_client');
      assertTokenError(
        await h.app.inject({ method: 'POST', url: path(metadata.revocation_endpoint) }),
        'invalid_client',
      );
      assert.equal((await h.app.inject({ method: 'GET', url: path(metadata.jwks_uri) })).statusCode, 200);
    });

    it('publishes Ed25519 public keys with kid and alg, and no private parts', async () => {
      const { keys } = await getJwks();
      assert.ok(keys.length >= 1);
      for (const key of keys) {
        assert.equal(typeof key.kid, 'string');
        assert.ok(key.kid);
        assert.equal(key.alg, 'EdDSA');
        assert.equal(key.kty, 'OKP');
        assert.equal(key.crv, 'Ed25519');
        assert.equal(key.use, 'sig');
        assert.equal(typeof key.x, 'string');
        for (const member of PRIVATE_MEMBERS) assert.equal(member in key, false, `JWK member "${member}" is published`);
      }
      assert.equal(new Set(keys.map((key) => key.kid)).size, keys.length, 'kids are unique');
    });

    it('lets a resource server verify an issued access token with the JWKS alone', async () => {
      const client = await h.client();
      const { access_token: token } = await clientCredentials(h, client);
      const jwks = createLocalJWKSet(await getJwks());
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer: TEST_ISSUER,
        typ: 'at+jwt',
        algorithms: ['EdDSA'],
        currentDate: h.clock.now(),
      });
      assert.equal(payload['client_id'], client.id);
      assert.equal(payload.sub, client.id);
      assert.equal(payload['scope'], 'core/main');
      assert.equal(protectedHeader.kid, decodeProtectedHeader(token).kid);

      // A token altered after signing does not verify.
      const [header, , signature] = token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...payload, scope: 'admin' })).toString('base64url');
      await assert.rejects(jwtVerify(`${header}.${forged}.${signature}`, jwks, { currentDate: h.clock.now() }), {
        code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
    });

    it('keeps the configured issuer whatever Host the request names', async () => {
      const metadata = (
        await h.app.inject({
          method: 'GET',
          url: '/.well-known/oauth-authorization-server',
          headers: { host: 'evil.example' },
        })
      ).json();
      assert.equal(metadata.issuer, TEST_ISSUER);
    });
  });
}
