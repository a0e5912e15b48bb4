/**
 * RFC 7009 for access tokens: `POST /oauth2/revoke` with an access token of the calling
 * client answers 200 and the gateway refuses the token (401 invalid_token) from then on,
 * until its `exp`; another client's token, or an expired one, is answered 200 and left alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { SqlRevokedAccessTokenStore } from '../../../src/adapters/store/sql-revoked-access-token-store.js';
import { RevokedAccessTokens } from '../../../src/app/revoked-access-tokens.js';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, type Harness } from '../../support/harness.js';
import { assertAdmitted, assertInvalidToken, getProtected } from '../bearer/bearer-responses.js';
import { clientCredentials, postRevoke } from './oauth-requests.js';

for (const backend of BACKENDS) {
  describe(`revoking access tokens (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { routes: protectedTestRoute() });
    });
    after(() => h?.close());

    it('refuses a revoked access token at once, and leaves the client’s other tokens working', async () => {
      const client = await h.client();
      const revoked = (await clientCredentials(h, client)).access_token;
      const kept = (await clientCredentials(h, client)).access_token;
      assertAdmitted(await getProtected(h, { token: revoked }), 'before');
      const answer = await postRevoke(h, { client, body: { token: revoked, token_type_hint: 'access_token' } });
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual(answer.json(), {});
      assertInvalidToken(await getProtected(h, { token: revoked }), 'revoked');
      assertAdmitted(await getProtected(h, { token: kept }), 'another token of the same client');
      const again = await postRevoke(h, { client, body: { token: revoked } });
      assert.equal(again.statusCode, 200, 'revoking twice');
    });

    it('answers 200 to another client’s access token and leaves it working', async () => {
      const owner = await h.client();
      const other = await h.client();
      const token = (await clientCredentials(h, owner)).access_token;
      const answer = await postRevoke(h, { client: other, body: { token } });
      assert.equal(answer.statusCode, 200, answer.body);
      assertAdmitted(await getProtected(h, { token }), 'still its owner’s');
    });

    it('keeps the revocation in the database until the token expires, then prunes it', async () => {
      const client = await h.client();
      const token = (await clientCredentials(h, client)).access_token;
      assert.equal((await postRevoke(h, { client, body: { token } })).statusCode, 200);
      const live = await h.services.database.query<{ n: number }>(
        'select count(*)::int as n from revoked_access_tokens where expires_at > $1',
        [h.clock.now()],
      );
      assert.ok(live[0]!.n >= 1);
      h.clock.advance(3601);
      assertInvalidToken(await getProtected(h, { token }), 'expired anyway');
      // The next revocation prunes every row whose token has expired.
      const next = (await clientCredentials(h, client)).access_token;
      assert.equal((await postRevoke(h, { client, body: { token: next } })).statusCode, 200);
      const rows = await h.services.database.query<{ n: number }>(
        'select count(*)::int as n from revoked_access_tokens where expires_at <= $1',
        [h.clock.now()],
      );
      assert.equal(rows[0]!.n, 0);
    });

    it('a process started after the revocation refuses the token too (read at start)', async () => {
      const client = await h.client();
      const token = (await clientCredentials(h, client)).access_token;
      assert.equal((await postRevoke(h, { client, body: { token } })).statusCode, 200);
      const fresh = new RevokedAccessTokens(new SqlRevokedAccessTokenStore(h.services.database), h.clock);
      await fresh.reload();
      assert.ok(fresh.isRevoked(String(decodeJwt(token).jti)));
    });
  });
}
