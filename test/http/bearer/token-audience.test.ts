/**
 * Access tokens as RFC 9068 has them: `typ: at+jwt`, `aud` the gateway (by default
 * `{issuer}/core`, else COREGATE_TOKEN_AUDIENCE; never the client id), and the gateway
 * checks it. Tokens from before audiences existed (no `aud`) are accepted while they
 * can still be alive from before the upgrade, refused once issued later.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, jwtVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, protectedTestRoute, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { assertAdmitted, assertForAnotherAudience, assertInvalidToken, getProtected } from './bearer-responses.js';
import { mint, serverSigningKey } from './minted-tokens.js';

for (const backend of BACKENDS) {
  describe(`access token audience (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend, { routes: protectedTestRoute() });
    });
    after(() => h?.close());

    it('issues at+jwt tokens whose aud is the gateway under the issuer, verifiable with jose and an audience check', async () => {
      const client = await h.client();
      const token = await h.token(client);
      assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
      const claims = decodeJwt(token);
      assert.equal(claims.aud, `${TEST_ISSUER}/core`);
      assert.notEqual(claims.aud, client.id);
      const jwks = (await h.app.inject({ url: '/.well-known/jwks.json' })).json<JSONWebKeySet>();
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: TEST_ISSUER,
        audience: `${TEST_ISSUER}/core`,
        typ: 'at+jwt',
        currentDate: h.clock.now(),
        requiredClaims: ['iss', 'sub', 'client_id', 'aud', 'scope', 'institution', 'iat', 'exp', 'jti'],
      });
      assert.equal(payload.sub, client.id);
      assert.equal(payload['client_id'], client.id);
      assertAdmitted(await getProtected(h, { token }));
    });

    it('accepts a token without aud issued before this process started (an upgrade logs no one out), refuses one issued later', async () => {
      const client = await h.client();
      const { kid, key } = await serverSigningKey(h);
      const { aud: _aud, ...claims } = decodeJwt(await h.token(client));
      const header = { kid, typ: 'at+jwt' };
      assertAdmitted(await getProtected(h, { token: await mint(claims, header, key) }), 'issued now, without aud');
      // Eleven minutes on: a token without aud issued now comes from no version that runs beside this one.
      h.clock.advance(11 * 60);
      const iat = Math.floor(h.clock.now().getTime() / 1000);
      assertInvalidToken(
        await getProtected(h, { token: await mint({ ...claims, iat, exp: iat + 600 }, header, key) }),
        'issued after the grace',
      );
    });
  });
}

describe('COREGATE_TOKEN_AUDIENCE', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness(BACKENDS[0]!, {
      routes: protectedTestRoute(),
      env: { COREGATE_TOKEN_AUDIENCE: 'https://gw.bank.example/core/' },
    });
  });
  after(() => h?.close());

  it('names the aud of issued tokens, and the gateway admits them', async () => {
    const token = await h.token(await h.client());
    assert.equal(decodeJwt(token).aud, 'https://gw.bank.example/core');
    assertAdmitted(await getProtected(h, { token }));
  });

  it('refuses a token for the default audience once another is configured', async () => {
    const { kid, key } = await serverSigningKey(h);
    const claims = decodeJwt(await h.token(await h.client()));
    const forDefault = await mint({ ...claims, aud: `${TEST_ISSUER}/core` }, { kid, typ: 'at+jwt' }, key);
    assertForAnotherAudience(await getProtected(h, { token: forDefault }), 'https://gw.bank.example/core', forDefault);
    assertAdmitted(
      await getProtected(h, {
        token: await mint(
          { ...claims, aud: ['https://other.example', 'https://gw.bank.example/core'] },
          { kid, typ: 'at+jwt' },
          key,
        ),
      }),
      'a list naming it',
    );
  });
});
