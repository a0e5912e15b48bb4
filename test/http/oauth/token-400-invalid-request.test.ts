/**
 * `POST /oauth2/token` → `invalid_request` for an authenticated client: the body
 * must be form-urlencoded, parameters appear once, credentials only in the
 * header, grant_type is required, one known scope, and a refresh_token grant
 * needs its token (docs/behaviour.md#token-errors, docs/behaviour.md#check-order).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, assertTokenError, postToken, refresh, refreshingClient } from './oauth-requests.js';

const GRANT = 'grant_type=client_credentials';

for (const backend of BACKENDS) {
  describe(`POST /oauth2/token 400 invalid_request (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it('refuses a body that is not form-urlencoded, whatever it holds', async () => {
      const client = await h.client();
      // The same body is a valid token request once labelled as a form.
      assertIssued(await postToken(h, { client, body: GRANT }), 'form-urlencoded');
      for (const contentType of [
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded-x',
        '',
        null,
      ]) {
        assertTokenError(
          await postToken(h, { client, contentType, body: GRANT }),
          'invalid_request',
          String(contentType),
        );
      }
      assertTokenError(
        await postToken(h, {
          client,
          contentType: 'application/json',
          body: JSON.stringify({ grant_type: 'client_credentials' }),
        }),
        'invalid_request',
        'JSON body',
      );
    });

    it('accepts the form media type with a UTF-8 charset, in any case, and refuses other charsets', async () => {
      const client = await h.client();
      for (const contentType of [
        'application/x-www-form-urlencoded; charset=UTF-8',
        'application/x-www-form-urlencoded;charset=utf-8',
        'Application/X-WWW-Form-Urlencoded',
      ]) {
        assertIssued(await postToken(h, { client, contentType, body: GRANT }), contentType);
      }
      assertTokenError(
        await postToken(h, {
          client,
          contentType: 'application/x-www-form-urlencoded; charset=ISO-8859-1',
          body: GRANT,
        }),
        'invalid_request',
        'latin-1',
      );
    });

    it('refuses a parameter given twice, even with the same value', async () => {
      const client = await h.client();
      for (const body of [
        'grant_type=client_credentials&grant_type=client_credentials',
        'grant_type=client_credentials&scope=core%2Fmain&scope=core%2Fmain',
        'grant_type=client_credentials&scope=core%2Fmain&scope=',
      ]) {
        assertTokenError(await postToken(h, { client, body }), 'invalid_request', body);
      }
    });

    it('refuses client_secret in the body: credentials travel in the Authorization header only', async () => {
      const client = await h.client();
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'client_credentials', client_secret: client.secret } }),
        'invalid_request',
      );
    });

    it('tolerates client_id in the body only when it names the authenticated client', async () => {
      const client = await h.client();
      const other = await h.client();
      assertIssued(
        await postToken(h, { client, body: { grant_type: 'client_credentials', client_id: client.id } }),
        'same client',
      );
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'client_credentials', client_id: other.id } }),
        'invalid_request',
        'other client',
      );
    });

    it('requires grant_type; an empty value counts as absent', async () => {
      const client = await h.client();
      for (const body of ['', 'scope=core%2Fmain', 'grant_type=', 'grant_type', 'GRANT_TYPE=client_credentials']) {
        assertTokenError(await postToken(h, { client, body }), 'invalid_request', JSON.stringify(body));
      }
    });

    it('refuses more than one scope per request', async () => {
      const client = await h.client();
      for (const scope of ['core/main core/main', 'core/main other/scope', 'core/main  core/main']) {
        assertTokenError(
          await postToken(h, { client, body: { grant_type: 'client_credentials', scope } }),
          'invalid_request',
          scope,
        );
      }
    });

    it('refuses an unknown scope', async () => {
      const client = await h.client();
      for (const scope of ['other/scope', 'core', 'core/main/', 'CORE/MAIN', 'core%2Fmain']) {
        assertTokenError(
          await postToken(h, { client, body: { grant_type: 'client_credentials', scope } }),
          'invalid_request',
          scope,
        );
      }
    });

    it('requires refresh_token with the refresh_token grant, and a bad request does not spend the token', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      for (const body of ['grant_type=refresh_token', 'grant_type=refresh_token&refresh_token=']) {
        assertTokenError(await postToken(h, { client, body }), 'invalid_request', body);
      }
      assertTokenError(
        await refresh(h, client, refreshToken, { scope: 'core/main other/scope' }),
        'invalid_request',
        'two scopes',
      );
      assertTokenError(
        await refresh(h, client, refreshToken, { scope: 'other/scope' }),
        'invalid_request',
        'unknown scope',
      );
      const refreshed = assertIssued(await refresh(h, client, refreshToken), 'the token is still unused');
      assert.equal(refreshed.scope, 'core/main');
    });
  });
}
