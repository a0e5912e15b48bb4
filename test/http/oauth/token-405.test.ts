/** The OAuth endpoints take POST only: other methods → 405 with `Allow: POST` (docs/behaviour.md#token-headers). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { assertNoStore, OAUTH_CONTENT_TYPE } from './oauth-requests.js';

const METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

for (const backend of BACKENDS) {
  describe(`/oauth2/token and /oauth2/revoke 405 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    for (const url of ['/oauth2/token', '/oauth2/revoke']) {
      it(`answers 405 with Allow: POST to other methods on ${url}`, async () => {
        const client = await h.client();
        for (const method of METHODS) {
          // Even with valid credentials and a valid grant in the query string.
          const response = await h.app.inject({
            method,
            url: `${url}?grant_type=client_credentials`,
            headers: { authorization: basic(client.id, client.secret) },
          });
          assert.equal(response.statusCode, 405, `${method} ${url}`);
          assert.equal(response.headers['allow'], 'POST', `${method} ${url}`);
          assertNoStore(response);
          if (method !== 'HEAD') {
            assert.equal(response.headers['content-type'], OAUTH_CONTENT_TYPE);
            assert.equal(response.json().access_token, undefined);
            assert.equal(typeof response.json().error, 'string');
          }
        }
      });
    }
  });
}
