/**
 * `POST /oauth2/token` → `unauthorized_client` and `unsupported_grant_type`
 * (docs/behaviour.md#grants-and-scopes), and grant_type checked before the other parameters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertIssued,
  assertTokenError,
  clientCredentials,
  postToken,
  refresh,
  refreshingClient,
} from './oauth-requests.js';

for (const backend of BACKENDS) {
  describe(`POST /oauth2/token 400 grant types (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it('answers unauthorized_client to the authorization_code grant', async () => {
      const client = await h.client({ grants: ['refresh_token'] });
      const bodies: Array<Record<string, string>> = [
        { grant_type: 'authorization_code' },
        { grant_type: 'authorization_code', code: 'abc', redirect_uri: 'https://example.test/cb' },
      ];
      for (const body of bodies) {
        assertTokenError(await postToken(h, { client, body }), 'unauthorized_client', JSON.stringify(body));
      }
    });

    it('answers unauthorized_client to refresh_token for a client without that grant, even with a valid refresh token', async () => {
      const client = await h.client();
      const { refreshToken } = await refreshingClient(h);
      assertTokenError(
        await refresh(h, client, refreshToken),
        'unauthorized_client',
        'someone else’s valid refresh token',
      );
      assertTokenError(await refresh(h, client, 'cgr_garbage'), 'unauthorized_client', 'garbage refresh token');
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'refresh_token' } }),
        'unauthorized_client',
        'no refresh token',
      );
      // The same client may still use client_credentials, and gets no refresh token.
      const issued = await clientCredentials(h, client);
      assert.equal(issued.refresh_token, undefined);
    });

    it('answers unsupported_grant_type to any other grant_type', async () => {
      const client = await h.client();
      for (const grantType of [
        'password',
        'urn:foo',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'urn:ietf:params:oauth:grant-type:device_code',
        'implicit',
        'CLIENT_CREDENTIALS',
        'client_credentials ',
        'refresh-token',
      ]) {
        assertTokenError(
          await postToken(h, { client, body: { grant_type: grantType } }),
          'unsupported_grant_type',
          grantType,
        );
      }
    });

    it('checks grant_type before the other parameters', async () => {
      const client = await h.client();
      const badScope = 'core/main other/scope';
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'password', scope: badScope } }),
        'unsupported_grant_type',
        'password',
      );
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'authorization_code', scope: badScope } }),
        'unauthorized_client',
        'code',
      );
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'refresh_token', scope: badScope } }),
        'unauthorized_client',
        'refresh',
      );
      assertTokenError(
        await postToken(h, { client, body: { grant_type: 'client_credentials', scope: badScope } }),
        'invalid_request',
        'cc',
      );
      assertIssued(await postToken(h, { client, body: { grant_type: 'client_credentials', scope: 'core/main' } }));
    });
  });
}
