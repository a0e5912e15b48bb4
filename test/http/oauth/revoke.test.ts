/**
 * `POST /oauth2/revoke` (RFC 7009): client_secret_basic required, `token`
 * required, unknown and other clients' tokens answered 200 and left alone, and
 * revoking a refresh token revokes its whole chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import {
  assertIssued,
  assertNoStore,
  assertTokenError,
  clientCredentials,
  postRevoke,
  refresh,
  refreshingClient,
} from './oauth-requests.js';

function assertRevoked(response: LightMyRequestResponse, why = ''): void {
  assert.equal(response.statusCode, 200, `${why} ${response.body}`);
  // `{}` as JSON (was an empty body), so that clients which parse the answer (simple-oauth2) work.
  assert.deepEqual(response.json(), {});
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assertNoStore(response);
}

for (const backend of BACKENDS) {
  describe(`POST /oauth2/revoke (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it('requires client authentication: invalid_client, and the token survives', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      const body = { token: refreshToken };
      assertTokenError(await postRevoke(h, { authorization: null, body }), 'invalid_client', 'no credentials');
      assertTokenError(
        await postRevoke(h, { authorization: basic(client.id, `${client.secret}x`), body }),
        'invalid_client',
        'wrong secret',
      );
      assertTokenError(
        await postRevoke(h, { authorization: `Bearer ${await h.token(client)}`, body }),
        'invalid_client',
        'bearer',
      );
      assertTokenError(
        await postRevoke(h, { authorization: null, contentType: 'application/json', body: '{}' }),
        'invalid_client',
        'bad body too',
      );
      await h.services.clientRegistry.setEnabled(client.id, false);
      assertTokenError(await postRevoke(h, { client, body }), 'invalid_client', 'disabled client');
      await h.services.clientRegistry.setEnabled(client.id, true);
      assertIssued(await refresh(h, client, refreshToken), 'nothing was revoked');
    });

    it('requires the token parameter, once, in a form body', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      assertTokenError(await postRevoke(h, { client, body: '' }), 'invalid_request', 'no token');
      assertTokenError(await postRevoke(h, { client, body: 'token=' }), 'invalid_request', 'empty token');
      assertTokenError(
        await postRevoke(h, { client, body: { token_type_hint: 'refresh_token' } }),
        'invalid_request',
        'only a hint',
      );
      assertTokenError(
        await postRevoke(h, {
          client,
          body: [
            ['token', refreshToken],
            ['token', 'x'],
          ],
        }),
        'invalid_request',
        'token twice',
      );
      assertTokenError(
        await postRevoke(h, { client, contentType: 'application/json', body: JSON.stringify({ token: refreshToken }) }),
        'invalid_request',
        'JSON',
      );
      assertTokenError(
        await postRevoke(h, { client, body: { token: refreshToken, client_secret: client.secret } }),
        'invalid_request',
        'secret in body',
      );
      assertIssued(await refresh(h, client, refreshToken), 'none of these revoked the token');
    });

    it('answers 200 to an unknown token (RFC 7009 §2.2)', async () => {
      const client = await h.client();
      assertRevoked(await postRevoke(h, { client, body: { token: 'cgr_unknown' } }), 'unknown');
      assertRevoked(
        await postRevoke(h, { client, body: { token: 'garbage', token_type_hint: 'access_token' } }),
        'garbage with hint',
      );
    });

    it('answers 200 to another client’s token but leaves it working', async () => {
      const owner = await refreshingClient(h);
      const other = await h.client({ grants: ['refresh_token'] });
      assertRevoked(await postRevoke(h, { client: other, body: { token: owner.refreshToken } }));
      assertIssued(await refresh(h, owner.client, owner.refreshToken), 'still usable by its owner');
    });

    it('revokes the caller’s own refresh token and every token of its chain', async () => {
      const { client, refreshToken: first } = await refreshingClient(h);
      const second = assertIssued(await refresh(h, client, first)).refresh_token!;
      assertRevoked(await postRevoke(h, { client, body: { token: second, token_type_hint: 'refresh_token' } }));
      assertTokenError(await refresh(h, client, second), 'invalid_grant', 'the revoked token');
      assertRevoked(await postRevoke(h, { client, body: { token: second } }), 'revoking twice');
    });

    it('revoking an already used token of a chain revokes the live one', async () => {
      const { client, refreshToken: first } = await refreshingClient(h);
      const second = assertIssued(await refresh(h, client, first)).refresh_token!;
      const third = assertIssued(await refresh(h, client, second)).refresh_token!;
      // Chains are separate: another grant of the same client survives.
      const otherChain = (await clientCredentials(h, client)).refresh_token!;
      assertRevoked(await postRevoke(h, { client, body: { token: first } }));
      assertTokenError(await refresh(h, client, third), 'invalid_grant', 'the live token of the chain');
      assertIssued(await refresh(h, client, otherChain), 'another chain of the same client');
    });

    it('answers 200 to an access token, which stays valid until it expires', async () => {
      const client = await h.client();
      const accessToken = await h.token(client);
      assertRevoked(await postRevoke(h, { client, body: { token: accessToken, token_type_hint: 'access_token' } }));
      await h.services.keyring.verify(accessToken, h.clock.now());
    });
  });
}
