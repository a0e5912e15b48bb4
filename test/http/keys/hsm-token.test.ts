/**
 * Signing keys on a SoftHSM2 token as the service lives with them: a rotation generates
 * on the token and the retired pair is destroyed there once its last token has expired
 * (the clock is the harness's); a token that stops answering while serving (its directory
 * moved away: a real fault of the module, not a stub) gives 503 `temporarily_unavailable`
 * with Retry-After at the token endpoint and an unready `/readyz`, and both recover by
 * themselves when it is back; a key imported into the token is refused. The PIN appears in
 * no log line.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { pino } from 'pino';
import { SqlSigningKeyStore } from '../../../src/adapters/store/sql-signing-key-store.js';
import { BACKENDS } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { createSoftHsmToken, softHsmSkip, type SoftHsmToken } from '../../support/softhsm.js';

const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Retired keys stay published for the TTL plus this margin (`JoseKeyring.rotate`). */
const PUBLISH_MARGIN_SECONDS = 60;
const KEY_CACHE_SECONDS = 30;

for (const backend of BACKENDS) {
  describe(`signing keys on a PKCS#11 token (${backend.name})`, { skip: backend.skip || softHsmSkip }, () => {
    let h: Harness;
    let token: SoftHsmToken;
    const logLines: string[] = [];
    before(async () => {
      token = createSoftHsmToken();
      const logger = pino(
        { level: 'debug' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      );
      h = await createHarness(backend, { env: token.env, logger });
    });
    after(async () => {
      await h?.close();
      token?.close();
    });

    const kidOf = (accessToken: string) => decodeProtectedHeader(accessToken).kid!;
    const publishedKids = async () =>
      (await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' }))
        .json<JSONWebKeySet>()
        .keys.map((key) => key.kid);
    const privateKeyLabels = () =>
      token
        .objects()
        .filter((object) => object.kind === 'Private Key')
        .map((object) => object.label);
    const requestToken = (client: { id: string; secret: string }) =>
      h.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'grant_type=client_credentials',
      });

    it('rotates on the token, keeps the old key published until its tokens expired, then destroys its pair', async () => {
      const client = await h.client();
      const oldKid = kidOf(await h.token(client));
      assert.deepEqual(privateKeyLabels(), [`coregate-${oldKid}`]);

      const { kid: newKid } = await h.services.keyring.rotate();
      await h.services.keyring.destroyExpiredKeys();
      assert.equal(kidOf(await h.token(client)), newKid);
      assert.deepEqual(new Set(await publishedKids()), new Set([oldKid, newKid]));
      assert.deepEqual(new Set(privateKeyLabels()), new Set([`coregate-${oldKid}`, `coregate-${newKid}`]));

      // The last second a token of the old key can be alive (plus the margin): still there.
      h.clock.advance(ACCESS_TOKEN_TTL_SECONDS + PUBLISH_MARGIN_SECONDS - 1);
      assert.deepEqual(await h.services.keyring.destroyExpiredKeys(), []);
      assert.ok(privateKeyLabels().includes(`coregate-${oldKid}`));

      // Past it (and past the key cache): out of the JWKS, and its pair gone from the token.
      h.clock.advance(KEY_CACHE_SECONDS + 2);
      assert.deepEqual(await publishedKids(), [newKid]);
      await h.services.keyring.destroyExpiredKeys();
      assert.deepEqual(privateKeyLabels(), [`coregate-${newKid}`]);
      assert.equal(
        token.objects().some((object) => object.label === `coregate-${oldKid}`),
        false,
        'the public key went with it',
      );
      assert.equal(kidOf(await h.token(client)), newKid);
    });

    it('signs concurrent requests on its pool of sessions', async () => {
      const client = await h.client();
      const answers = await Promise.all(Array.from({ length: 24 }, () => requestToken(client)));
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        answers.map(() => 200),
      );
    });

    it('answers 503 temporarily_unavailable with Retry-After while the token is away, and recovers without a restart', async () => {
      const client = await h.client();
      assert.equal((await requestToken(client)).statusCode, 200);

      token.remove();
      try {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const refused = await requestToken(client);
          assert.equal(refused.statusCode, 503, refused.body);
          assert.equal(refused.json<{ error: string }>().error, 'temporarily_unavailable');
          assert.match(String(refused.headers['retry-after']), /^\d+$/);
        }
        const readiness = await h.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(readiness.statusCode, 503);
        assert.equal(readiness.json<{ checks: Record<string, string> }>().checks['signing_key'], 'failed');
        // The public keys come from the database: the JWKS keeps answering.
        assert.equal((await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode, 200);
      } finally {
        token.restore();
      }

      const issued = await requestToken(client);
      assert.equal(issued.statusCode, 200, issued.body);
      const readiness = await h.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(readiness.statusCode, 200, readiness.body);

      const metrics = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /coregate_token_signatures_total\{store="pkcs11",alg="EdDSA",outcome="ok"\} [1-9]/);
      assert.match(metrics, /coregate_token_signatures_total\{store="pkcs11",alg="EdDSA",outcome="error"\} [1-9]/);
      assert.match(metrics, /coregate_token_signature_duration_seconds_count\{store="pkcs11",alg="EdDSA"\} [1-9]/);
    });

    it('refuses to sign with a key imported into the token under its label', async () => {
      // A P-256 key made outside the token and written into it (pkcs11-tool, C_CreateObject), then
      // made the active key in the database as if it were one of coregate's.
      const kid = randomUUID();
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      token.importPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), `coregate-${kid}`);
      const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
      await new SqlSigningKeyStore(h.services.database).activate(
        {
          kid,
          alg: 'ES256',
          publicJwk: { kty, crv, x, y },
          privateSealed: `pkcs11:coregate-${kid}`,
          createdAt: h.clock.now(),
          retiredAt: null,
          publishUntil: null,
        },
        { retireActive: true, publishUntil: new Date(h.clock.now().getTime() + 3_660_000) },
      );
      h.services.keyring.forgetAll();

      const refused = await requestToken(await h.client());
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json<{ error: string }>().error, 'temporarily_unavailable');
      assert.ok(logLines.some((line) => line.includes(`coregate-${kid} was not generated on the token`)));

      // The operator's way out: a rotation generates a key on the token again.
      await h.services.keyring.rotate();
      assert.equal((await requestToken(await h.client())).statusCode, 200);
    });

    it('never logs the PIN', () => {
      assert.ok(
        logLines.some((line) => line.includes('upstream failure')),
        'the outage was logged',
      );
      assert.equal(logLines.filter((line) => line.includes(token.pin)).length, 0);
    });
  });
}
