/**
 * The refresh_token grant (docs/behaviour.md#refresh-tokens): tokens rotate on use, keep the
 * scope of the original grant, and are `invalid_grant` when unknown, another client's, expired,
 * revoked or presented again — a reuse revokes the whole chain.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertIssued,
  assertTokenError,
  clientCredentials,
  postRevoke,
  refresh,
  refreshingClient,
} from './oauth-requests.js';

const REFRESH_TTL_SECONDS = 600;

for (const backend of BACKENDS) {
  describe(`POST /oauth2/token refresh_token grant (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { env: { COREGATE_REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL_SECONDS) } });
    });
    after(() => h?.close());

    it('rotates: a refresh yields a new access token and a different refresh token; the old one is then invalid_grant', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      const refreshed = assertIssued(await refresh(h, client, refreshToken));
      assert.equal(refreshed.token_type, 'Bearer');
      assert.equal(refreshed.expires_in, 3600);
      assert.ok(refreshed.refresh_token);
      assert.notEqual(refreshed.refresh_token, refreshToken);
      await h.services.keyring.verify(refreshed.access_token, h.clock.now());
      assertTokenError(await refresh(h, client, refreshToken), 'invalid_grant', 'the rotated-away token');
    });

    it('keeps the scope of the original grant, and accepts that scope when named', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      const refreshed = assertIssued(await refresh(h, client, refreshToken));
      assert.equal(refreshed.scope, 'core/main');
      assert.equal(decodeJwt(refreshed.access_token)['scope'], 'core/main');
      assert.equal(decodeJwt(refreshed.access_token)['client_id'], client.id);
      const again = assertIssued(
        await refresh(h, client, refreshed.refresh_token!, { scope: 'core/main' }),
        'scope named',
      );
      assert.equal(decodeJwt(again.access_token)['scope'], 'core/main');
    });

    it('a reused refresh token is invalid_grant and revokes its whole chain', async () => {
      const { client, refreshToken: first } = await refreshingClient(h);
      const second = assertIssued(await refresh(h, client, first)).refresh_token!;
      const third = assertIssued(await refresh(h, client, second)).refresh_token!;
      // Another chain of the same client must survive.
      const otherChain = (await clientCredentials(h, client)).refresh_token!;

      assertTokenError(await refresh(h, client, first), 'invalid_grant', 'reuse of the first token');
      assertTokenError(await refresh(h, client, third), 'invalid_grant', 'the live token issued from it');
      assertTokenError(await refresh(h, client, second), 'invalid_grant', 'the middle token');
      assertIssued(await refresh(h, client, otherChain), 'another chain of the same client');
    });

    it('refuses unknown and garbage refresh tokens', async () => {
      const { client } = await refreshingClient(h);
      const accessToken = await h.token(client);
      for (const token of [
        'garbage',
        `cgr_${randomBytes(32).toString('base64url')}`,
        'x'.repeat(4000),
        accessToken,
        '%00',
        '\u0000',
        'cgr_',
      ]) {
        assertTokenError(await refresh(h, client, token), 'invalid_grant', token.slice(0, 40));
      }
    });

    it('refuses another client’s refresh token without spending it', async () => {
      const owner = await refreshingClient(h);
      const thief = await h.client({ grants: ['refresh_token'] });
      assertTokenError(await refresh(h, thief, owner.refreshToken), 'invalid_grant', 'presented by another client');
      assertIssued(await refresh(h, owner.client, owner.refreshToken), 'the owner can still use it');
    });

    it('refuses an expired refresh token (COREGATE_REFRESH_TOKEN_TTL_SECONDS)', async () => {
      // Two tokens issued together: one used a second before expiry, the other a second after.
      const { client, refreshToken: usedInTime } = await refreshingClient(h);
      const usedTooLate = (await clientCredentials(h, client)).refresh_token!;
      h.clock.advance(REFRESH_TTL_SECONDS - 1);
      const renewed = assertIssued(await refresh(h, client, usedInTime), 'one second before expiry').refresh_token!;
      h.clock.advance(2);
      assertTokenError(await refresh(h, client, usedTooLate), 'invalid_grant', 'one second after expiry');
      // The lifetime counts from each token's issue: the one refreshed at TTL-1 lives on.
      assertIssued(await refresh(h, client, renewed), 'a token issued later');
    });

    it('refuses a refresh token revoked through /oauth2/revoke', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      assert.equal((await postRevoke(h, { client, body: { token: refreshToken } })).statusCode, 200);
      assertTokenError(await refresh(h, client, refreshToken), 'invalid_grant');
    });

    it('one refresh token presented twice at once: exactly one wins, and the chain — the winner’s new token included — is revoked', async () => {
      const { client, refreshToken } = await refreshingClient(h);
      const answers = await Promise.all([refresh(h, client, refreshToken), refresh(h, client, refreshToken)]);
      const winners = answers.filter((answer) => answer.statusCode === 200);
      assert.equal(winners.length, 1, answers.map((answer) => answer.body).join('\n'));
      assertTokenError(
        answers.find((answer) => answer.statusCode !== 200)!,
        'invalid_grant',
      );
      const successor = winners[0]!.json<{ refresh_token: string }>().refresh_token;
      assertTokenError(
        await refresh(h, client, successor),
        'invalid_grant',
        'the winner’s successor is in the revoked chain',
      );
    });
  });
}
