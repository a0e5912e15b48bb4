/**
 * The DPoP proof verifier keeps each client key imported (by `alg` and thumbprint): a key
 * taken from that cache still checks every proof's own signature, and what the header
 * carries is refused before anything is imported.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { JoseDpopProofVerifier } from '../../src/adapters/crypto/jose-dpop-proof.js';
import { InvalidProof } from '../../src/ports/client-proofs.js';
import { FakeClock } from '../support/fake-clock.js';

const clock = new FakeClock();
const URL_ = 'https://gw.example/core/accounts';
const TOKEN = 'an-access-token';
const expected = { method: 'GET', url: URL_, now: clock.now(), accessToken: TOKEN };

async function key(): Promise<{ privateKey: CryptoKey; jwk: JWK; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

function proof(signingKey: CryptoKey, header: Record<string, unknown>): Promise<string> {
  return new SignJWT({
    iat: Math.floor(clock.now().getTime() / 1000),
    jti: randomUUID(),
    htm: 'GET',
    htu: URL_,
    ath: createHash('sha256').update(TOKEN).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', ...header })
    .sign(signingKey);
}

async function refusal(verifier: JoseDpopProofVerifier, text: string): Promise<string> {
  const error = await verifier.verify(text, expected).then(
    () => assert.fail('the proof was accepted'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof InvalidProof, String(error));
  return error.reason;
}

describe('JoseDpopProofVerifier', () => {
  it('verifies proof after proof of one key, each bound to its thumbprint', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const jkt = await calculateJwkThumbprint(client.jwk);
    for (let index = 0; index < 3; index += 1) {
      const verified = await verifier.verify(await proof(client.privateKey, { jwk: client.jwk }), expected);
      assert.equal(verified.jkt, jkt);
    }
  });

  it('verifies a proof whose header is too long to be kept, every time', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const jkt = await calculateJwkThumbprint(client.jwk);
    for (let index = 0; index < 2; index += 1) {
      const verified = await verifier.verify(
        await proof(client.privateKey, { jwk: client.jwk, padding: 'x'.repeat(2000) }),
        expected,
      );
      assert.equal(verified.jkt, jkt);
    }
    const thief = await key();
    assert.equal(
      await refusal(verifier, await proof(thief.privateKey, { jwk: client.jwk, padding: 'x'.repeat(2000) })),
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it('checks the signature of a proof whose header key is already held: one signed by another key is refused', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const thief = await key();
    await verifier.verify(await proof(client.privateKey, { jwk: client.jwk }), expected);
    assert.equal(
      await refusal(verifier, await proof(thief.privateKey, { jwk: client.jwk })),
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it('refuses a private key, a missing key and an algorithm outside the list before importing anything', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    assert.equal(
      await refusal(verifier, await proof(client.privateKey, { jwk: client.privateJwk })),
      'the header jwk is a private key',
    );
    assert.equal(await refusal(verifier, await proof(client.privateKey, {})), 'no jwk in the header');
    const hmac = await new SignJWT({ jti: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: client.jwk })
      .sign(new Uint8Array(32));
    assert.equal(await refusal(verifier, hmac), 'alg missing or not allowed');
    await refusal(verifier, 'not.a.jwt');
  });
});
