/**
 * The bearer check of gateway routes → 401 (RFC 6750, docs/behaviour.md#bearer-check): no token →
 * `WWW-Authenticate: Bearer`; a bad, forged, expired or foreign token, or one of
 * a disabled or deleted client, or an unbound one of a client that must use bound tokens →
 * `Bearer error="invalid_token"`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, type JWTPayload } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { clientCredentials } from '../oauth/oauth-requests.js';
import {
  assertAdmitted,
  assertForAnotherAudience,
  assertInvalidToken,
  assertNoToken,
  getProtected,
} from './bearer-responses.js';
import { mint, serverSigningKey } from './minted-tokens.js';

const ACCESS_TOKEN_TTL_SECONDS = 3600;
const CLIENT_CACHE_SECONDS = 30;

for (const backend of BACKENDS) {
  describe(`bearer-protected route 401 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      // Without the change feed: the cache lifetime alone bounds a disabled client's tokens, as
      // while the feed is down (test/http/bearer/change-feed.test.ts: at once with the feed).
      h = await createHarness(backend, { routes: protectedTestRoute(), listenForChanges: false });
    });
    after(() => h?.close());

    it('admits a valid core/main token and names the caller', async () => {
      const client = await h.client({ platform: 'acme' });
      const { principal } = assertAdmitted(await getProtected(h, { token: await h.token(client) }));
      assert.deepEqual(principal, {
        clientId: client.id,
        platform: 'acme',
        institution: 'default',
        scopes: ['core/main'],
      });
      assertAdmitted(
        await getProtected(h, { authorization: `bearer  ${await h.token(client)} ` }),
        'scheme is case-insensitive',
      );
    });

    it('answers 401 with a bare Bearer challenge when no bearer token is presented', async () => {
      const client = await h.client();
      const cases: Array<[string, string | undefined]> = [
        ['no Authorization header', undefined],
        ['empty header', ''],
        ['scheme only', 'Bearer'],
        ['scheme and blanks', 'Bearer   '],
        ['Basic credentials', `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`],
        ['token without a scheme', await h.token(client)],
      ];
      for (const [why, authorization] of cases) {
        const response = await getProtected(h, authorization === undefined ? {} : { authorization });
        assertNoToken(response, why);
        assert.match(response.json().message, /token/);
      }
    });

    it('answers invalid_token to garbage, a malformed token, and a tampered one', async () => {
      const token = await h.token(await h.client());
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const claims = decodeJwt(token);
      const cases: Array<[string, string]> = [
        ['garbage', 'not-a-jwt'],
        ['three garbage parts', 'a.b.c'],
        ['not token68', '!!!'],
        ['two tokens', `${token} ${token}`],
        ['truncated signature', token.slice(0, -4)],
        ['another signature', `${header}.${payload}.${signature.split('').reverse().join('')}`],
        [
          'widened claims',
          `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'core/main admin' })).toString('base64url')}.${signature}`,
        ],
        [
          'unsigned (alg none)',
          `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`,
        ],
      ];
      for (const [why, value] of cases) {
        const response = await getProtected(h, { token: value });
        assertInvalidToken(response, why);
        assert.equal(response.body.includes(value), false, 'the token is not echoed');
      }
    });

    it('answers invalid_token to a token signed with another key, whatever kid it names', async () => {
      const genuine = await h.token(await h.client());
      const { privateKey } = await generateKeyPair('EdDSA');
      const claims = decodeJwt(genuine);
      const realKid = decodeProtectedHeader(genuine).kid!;
      for (const [why, kid] of [
        ['the server’s kid', realKid],
        ['an unknown kid', randomUUID()],
      ] as const) {
        assertInvalidToken(
          await getProtected(h, { token: await mint(claims, { kid, typ: 'at+jwt' }, privateKey) }),
          why,
        );
      }
    });

    it('answers invalid_token to an expired token, and not a second earlier', async () => {
      const token = await h.token(await h.client());
      h.clock.advance(ACCESS_TOKEN_TTL_SECONDS - 1);
      assertAdmitted(await getProtected(h, { token }), 'one second before exp');
      h.clock.advance(2);
      assertInvalidToken(await getProtected(h, { token }), 'one second after exp');
    });

    it('answers invalid_token to a refresh token', async () => {
      const client = await h.client({ grants: ['refresh_token'] });
      const { access_token: accessToken, refresh_token: refreshToken } = await clientCredentials(h, client);
      assert.ok(refreshToken);
      assertAdmitted(await getProtected(h, { token: accessToken }), 'its access token');
      assertInvalidToken(await getProtected(h, { token: refreshToken }), 'the refresh token');
    });

    it('answers invalid_token to well-signed tokens that are not coregate access tokens', async () => {
      const client = await h.client();
      const { kid, key } = await serverSigningKey(h);
      const claims = decodeJwt(await h.token(client));
      const header = { kid, typ: 'at+jwt' };
      // The minting itself is sound: the untouched claims and header are admitted.
      assertAdmitted(await getProtected(h, { token: await mint(claims, header, key) }), 'minted like the server');
      const { token_use: _use, ...withoutTokenUse } = claims;
      const { client_id: _clientId, ...withoutClientId } = claims;
      const now = Math.floor(h.clock.now().getTime() / 1000);
      const cases: Array<[string, JWTPayload, Record<string, unknown>]> = [
        ['typ JWT', claims, { kid, typ: 'JWT' }],
        ['no typ', claims, { kid }],
        ['no kid', claims, { typ: 'at+jwt' }],
        ['token_use refresh', { ...claims, token_use: 'refresh' }, header],
        ['token_use id', { ...claims, token_use: 'id' }, header],
        ['no token_use', withoutTokenUse, header],
        ['another issuer', { ...claims, iss: 'https://elsewhere.example' }, header],
        ['issuer with a trailing slash', { ...claims, iss: `${TEST_ISSUER}/` }, header],
        ['no client_id', withoutClientId, header],
        ['scope not a string', { ...claims, scope: ['core/main'] }, header],
        ['already expired', { ...claims, exp: now - 1 }, header],
        ['not yet valid', { ...claims, nbf: now + 600 }, header],
      ];
      for (const [why, payload, protectedHeader] of cases) {
        assertInvalidToken(await getProtected(h, { token: await mint(payload, protectedHeader, key) }), why);
      }
    });

    it('tells the holder of a token for another audience so, naming the audience the gateway takes', async () => {
      const { kid, key } = await serverSigningKey(h);
      const claims = decodeJwt(await h.token(await h.client()));
      // RFC 9068 §4: the gateway must find itself in `aud`.
      const audiences: Array<[string, string | string[]]> = [
        ['another audience', 'https://elsewhere.example/core'],
        ['the client id as audience', claims['client_id'] as string],
        ['the issuer as audience', TEST_ISSUER],
        ['a list without the gateway', ['https://elsewhere.example/core', TEST_ISSUER]],
      ];
      for (const [why, aud] of audiences) {
        const token = await mint({ ...claims, aud }, { kid, typ: 'at+jwt' }, key);
        assertForAnotherAudience(await getProtected(h, { token }), `${TEST_ISSUER}/core`, token, why);
      }
    });

    it('answers invalid_token to a well-signed token of a client that does not exist', async () => {
      const { kid, key } = await serverSigningKey(h);
      const claims = decodeJwt(await h.token(await h.client()));
      const ghost = 'cg_doesNotExist000000000';
      assertInvalidToken(
        await getProtected(h, {
          token: await mint({ ...claims, sub: ghost, client_id: ghost }, { kid, typ: 'at+jwt' }, key),
        }),
      );
    });

    it('stops a client’s tokens once another process disabled it and the client cache lapses (within 60 s)', async () => {
      const client = await h.client();
      const token = await h.token(client);
      assertAdmitted(await getProtected(h, { token }), 'enabled');
      // Written as another process would (this one is not told; there is no feed here).
      const setEnabled = (enabled: boolean) =>
        h.services.database.query('update clients set enabled = $2 where id = $1', [client.id, enabled]);
      await setEnabled(false);
      assertAdmitted(await getProtected(h, { token }), 'within the cache window');
      h.clock.advance(CLIENT_CACHE_SECONDS + 1);
      assertInvalidToken(await getProtected(h, { token }), 'after the cache window');
      await setEnabled(true);
      h.clock.advance(CLIENT_CACHE_SECONDS + 1);
      assertAdmitted(await getProtected(h, { token }), 're-enabled');
    });

    it('stops a client’s tokens at once when this process disabled it, feed or not', async () => {
      const client = await h.client();
      const token = await h.token(client);
      assertAdmitted(await getProtected(h, { token }), 'enabled');
      await h.services.clientRegistry.setEnabled(client.id, false);
      assertInvalidToken(await getProtected(h, { token }), 'disabled here');
      await h.services.clientRegistry.setEnabled(client.id, true);
      assertAdmitted(await getProtected(h, { token }), 're-enabled here');
    });

    it('stops a client’s unbound tokens once it must use bound tokens (clients update --require-bound-tokens)', async () => {
      const client = await h.client();
      const token = await h.token(client);
      assertAdmitted(await getProtected(h, { token }), 'bearer tokens allowed');
      await h.services.clientRegistry.update(client.id, { requireBoundTokens: true });
      assertInvalidToken(await getProtected(h, { token }), 'an unbound token issued before the rule');
      await h.services.clientRegistry.update(client.id, { requireBoundTokens: false });
      assertAdmitted(await getProtected(h, { token }), 'the rule lifted');
    });

    it('stops a deleted client’s tokens once the client cache lapses', async () => {
      const client = await h.client();
      const token = await h.token(client);
      assertAdmitted(await getProtected(h, { token }), 'existing');
      // No command deletes clients; an operator may still remove the row.
      await h.services.database.query('delete from clients where id = $1', [client.id]);
      assertAdmitted(await getProtected(h, { token }), 'within the cache window');
      h.clock.advance(CLIENT_CACHE_SECONDS + 1);
      assertInvalidToken(await getProtected(h, { token }), 'after the cache window');
    });
  });
}
