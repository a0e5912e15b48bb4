import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { assertIssued, clientCredentials, OAUTH_CONTENT_TYPE, postToken } from './oauth-requests.js';

for (const backend of BACKENDS) {
  describe(`POST /oauth2/token 200 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it('issues a signed JWT access token with no-store headers', async () => {
      const client = await h.client();
      const response = await h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'grant_type=client_credentials&scope=core%2Fmain',
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['pragma'], 'no-cache');
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const body = response.json();
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3600);
      assert.equal(body.refresh_token, undefined);
      const claims = decodeJwt(body.access_token);
      assert.equal(claims.iss, TEST_ISSUER);
      assert.equal(claims.sub, client.id);
      assert.equal(claims['client_id'], client.id);
      assert.equal(claims['scope'], 'core/main');
      assert.equal(claims['token_use'], 'access');
      assert.equal(claims.exp! - claims.iat!, 3600);
      assert.ok(claims.jti);
      const header = decodeProtectedHeader(body.access_token);
      assert.equal(header.alg, 'EdDSA');
      assert.ok(header.kid);
      await h.services.keyring.verify(body.access_token, h.clock.now());
    });

    it('answers with Content-Type exactly application/json;charset=UTF-8', async () => {
      const response = await postToken(h, { client: await h.client(), body: { grant_type: 'client_credentials' } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], OAUTH_CONTENT_TYPE);
    });

    it('grants all of the client’s scopes when scope is omitted', async () => {
      const client = await h.client();
      for (const body of ['grant_type=client_credentials', 'grant_type=client_credentials&scope=']) {
        const issued = assertIssued(await postToken(h, { client, body }), body);
        assert.equal(issued.scope, 'core/main');
        assert.equal(decodeJwt(issued.access_token)['scope'], 'core/main');
      }
    });

    it('adds a refresh token for a client holding the refresh_token grant', async () => {
      const issued = await clientCredentials(h, await h.client({ grants: ['refresh_token'] }));
      assert.match(issued.refresh_token ?? '', /^cgr_[A-Za-z0-9_-]{43}$/);
      assert.equal(issued.scope, 'core/main');
    });

    it('issues a distinct token on every request', async () => {
      const client = await h.client();
      const [first, second] = [await clientCredentials(h, client), await clientCredentials(h, client)];
      assert.notEqual(first.access_token, second.access_token);
      assert.notEqual(decodeJwt(first.access_token).jti, decodeJwt(second.access_token).jti);
    });
  });
}
