/**
 * Signing key rotation as a resource server sees it through the JWKS: the new
 * key signs at once, the retired key stays published while tokens it signed can
 * be alive (access token TTL plus a margin), then leaves the JWKS. The keyring
 * caches keys for 30 s by the clock, so every "leaves" step moves past that too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, TEST_ISSUER, type Harness } from '../../support/harness.js';

const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** `JoseKeyring.rotate()` keeps retired keys published for the access token TTL plus 60 s. */
const PUBLISH_MARGIN_SECONDS = 60;
const KEY_CACHE_SECONDS = 30;

for (const backend of BACKENDS) {
  describe(`signing key rotation (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    const jwks = async (): Promise<JSONWebKeySet> => {
      const response = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(response.statusCode, 200);
      return response.json<JSONWebKeySet>();
    };
    const kids = async () => (await jwks()).keys.map((key) => key.kid);
    const kidOf = (token: string) => decodeProtectedHeader(token).kid;
    const verifyWithJwks = async (token: string, set: JSONWebKeySet) =>
      jwtVerify(token, createLocalJWKSet(set), { issuer: TEST_ISSUER, typ: 'at+jwt', currentDate: h.clock.now() });

    it('publishes the new key beside the old one; new tokens use it, old tokens still verify', async () => {
      const client = await h.client();
      const before = await h.token(client);
      const oldKid = kidOf(before);
      assert.deepEqual(await kids(), [oldKid]);

      const { kid: newKid } = await h.services.keyring.rotate();
      assert.notEqual(newKid, oldKid);
      const published = await jwks();
      assert.equal(published.keys.length, 2);
      assert.deepEqual(new Set(published.keys.map((key) => key.kid)), new Set([oldKid, newKid]));
      for (const key of published.keys) assert.equal('d' in key, false);

      const after = await h.token(client);
      assert.equal(kidOf(after), newKid);
      for (const token of [before, after]) {
        await h.services.keyring.verify(token, h.clock.now());
        await verifyWithJwks(token, published);
      }
      // A resource server holding only the new key cannot verify old tokens: both keys are needed.
      const onlyNew = { keys: published.keys.filter((key) => key.kid === newKid) };
      await assert.rejects(verifyWithJwks(before, onlyNew), { code: 'ERR_JWKS_NO_MATCHING_KEY' });
    });

    it('keeps a retired key published until its tokens have expired plus the margin, then drops it', async () => {
      const client = await h.client();
      const signedBefore = await h.token(client);
      const retiredKid = kidOf(signedBefore);
      const { kid: activeKid, previousKeysPublishedUntil } = await h.services.keyring.rotate();
      const rotatedAt = h.clock.now().getTime();
      assert.equal(
        previousKeysPublishedUntil.getTime(),
        rotatedAt + (ACCESS_TOKEN_TTL_SECONDS + PUBLISH_MARGIN_SECONDS) * 1000,
      );
      assert.ok((await kids()).includes(retiredKid));

      // The last second the retired key must be published (the cache has long lapsed).
      h.clock.advance(ACCESS_TOKEN_TTL_SECONDS + PUBLISH_MARGIN_SECONDS - 1);
      assert.ok((await kids()).includes(retiredKid), 'still published within TTL + margin');
      await assert.rejects(
        h.services.keyring.verify(signedBefore, h.clock.now()),
        /exp|expired/i,
        'its tokens are expired by now',
      );

      // Past TTL + margin but inside the 30 s cache: the cached JWKS may still list it.
      h.clock.advance(2);
      // Past the cache too: gone, and the active key is unaffected.
      h.clock.advance(KEY_CACHE_SECONDS + 1);
      const published = await kids();
      assert.equal(published.includes(retiredKid), false, 'the retired key left the JWKS');
      assert.ok(published.includes(activeKid));
      const fresh = await h.token(client);
      assert.equal(kidOf(fresh), activeKid);
      await verifyWithJwks(fresh, await jwks());
    });
  });
}
