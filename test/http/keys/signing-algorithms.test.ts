/**
 * Access tokens from the token endpoint for each key store (the database, a SoftHSM2
 * token through PKCS#11) and each algorithm (COREGATE_SIGNING_ALG): verified by jose
 * against the published JWKS, whose key names its `alg`, and accepted by the gateway's
 * bearer check. On the token, the key is read back with pkcs11-tool: private key
 * sensitive, never extractable, generated there, labelled with the prefix and its kid.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { SIGNING_ALGS } from '../../../src/domain/signing-alg.js';
import { SqlSigningKeyStore } from '../../../src/adapters/store/sql-signing-key-store.js';
import { BACKENDS, QUICKEST_BACKEND } from '../../support/backends.js';
import { basic, createHarness, protectedTestRoute, TEST_ISSUER, type Harness } from '../../support/harness.js';
import { createSoftHsmToken, softHsmSkip, type SoftHsmToken } from '../../support/softhsm.js';

const STORES = ['file', 'pkcs11'] as const;

for (const backend of BACKENDS) {
  for (const store of STORES) {
    for (const alg of SIGNING_ALGS) {
      // The file store's SQL is the same for every algorithm, and runs on PostgreSQL in every
      // other suite: PostgreSQL runs the HSM here, which adds the wrapped encryption key's table.
      if (store === 'file' && backend.name === 'postgres') continue;
      const skip = backend.skip || (store === 'pkcs11' && softHsmSkip);
      describe(`token signing, ${store} store, ${alg} (${backend.name})`, { skip }, () => {
        let h: Harness;
        let token: SoftHsmToken | undefined;
        before(async () => {
          token = store === 'pkcs11' ? createSoftHsmToken() : undefined;
          h = await createHarness(backend, {
            env: { COREGATE_SIGNING_ALG: alg, ...token?.env },
            routes: protectedTestRoute(),
          });
        });
        after(async () => {
          await h?.close();
          token?.close();
        });

        it('signs tokens that jose verifies against the JWKS, and the gateway accepts', async () => {
          const client = await h.client();
          const accessToken = await h.token(client);
          const header = decodeProtectedHeader(accessToken);
          assert.equal(header.alg, alg);
          assert.equal(header.typ, 'at+jwt');

          const jwks = (await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json<JSONWebKeySet>();
          assert.equal(jwks.keys.length, 1);
          const [published] = jwks.keys;
          assert.equal(published!.alg, alg);
          assert.equal(published!.kid, header.kid);
          for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(member in published!, false);
          const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks), {
            issuer: TEST_ISSUER,
            algorithms: [alg],
            typ: 'at+jwt',
            currentDate: h.clock.now(),
          });
          assert.equal(payload['client_id'], client.id);

          const guarded = await h.app.inject({
            method: 'GET',
            url: '/test/protected',
            headers: { authorization: `Bearer ${accessToken}` },
          });
          assert.equal(guarded.statusCode, 200, guarded.body);
        });

        if (store === 'pkcs11') {
          it('keeps the key on the token: sensitive, never extractable, generated there, labelled prefix + kid', async () => {
            const client = await h.client();
            const { kid } = decodeProtectedHeader(await h.token(client));
            const objects = token!.objects().filter((object) => object.label === `coregate-${kid}`);
            const privateKey = objects.find((object) => object.kind === 'Private Key');
            assert.ok(privateKey, `a private key labelled coregate-${kid}`);
            for (const word of ['sensitive', 'always sensitive', 'never extractable', 'local'])
              assert.ok(privateKey.access.includes(word), `${word} in ${privateKey.access.join(', ')}`);
            assert.deepEqual(privateKey.usage, ['sign']);
            assert.ok(objects.some((object) => object.kind === 'Public Key'));
            // The encryption key's wrapping key: an AES key that never leaves the token either.
            const sealing = token!.objects().find((object) => object.label === 'coregate-sealing');
            assert.equal(sealing?.kind, 'Secret Key');
            for (const word of ['sensitive', 'never extractable'])
              assert.ok(sealing.access.includes(word), `${word} in ${sealing.access.join(', ')}`);
          });
        }
      });
    }
  }
}

describe('an active key kept by a key store this process is not configured for', () => {
  it('keeps the JWKS answering and refuses only to sign, with 503 temporarily_unavailable', async (t) => {
    // A file-store process beside a moved installation: the active key is on a token.
    const h = await createHarness(QUICKEST_BACKEND);
    t.after(() => h.close());
    const client = await h.client();
    await h.token(client);
    const { publicKey } = generateKeyPairSync('ed25519');
    const { kty, crv, x } = publicKey.export({ format: 'jwk' });
    const kid = randomUUID();
    await new SqlSigningKeyStore(h.services.database).activate(
      {
        kid,
        alg: 'EdDSA',
        publicJwk: { kty, crv, x },
        privateSealed: `pkcs11:coregate-${kid}`,
        createdAt: h.clock.now(),
        retiredAt: null,
        publishUntil: null,
      },
      { retireActive: true, publishUntil: new Date(h.clock.now().getTime() + 3_660_000) },
    );
    h.services.keyring.forgetAll();

    const jwks = await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    assert.equal(jwks.statusCode, 200);
    assert.ok(jwks.json<JSONWebKeySet>().keys.some((key) => key.kid === kid));
    const refused = await h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { authorization: basic(client.id, client.secret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json<{ error: string }>().error, 'temporarily_unavailable');
    assert.ok(refused.headers['retry-after']);
  });
});
