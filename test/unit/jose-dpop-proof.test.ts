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

  it('verifies PS256 and Ed25519 proofs, each with its own kind of key', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    for (const alg of ['PS256', 'EdDSA', 'Ed25519'] as const) {
      const { publicKey, privateKey } = await generateKeyPair(alg === 'PS256' ? 'PS256' : 'Ed25519', {
        extractable: true,
      });
      const jwk = await exportJWK(publicKey);
      const verified = await verifier.verify(await proof(privateKey, { alg, jwk }), expected);
      assert.equal(verified.jkt, await calculateJwkThumbprint(jwk));
    }
  });

  it('refuses a header whose algorithm does not fit its key, a critical extension and another typ', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const rsa = await generateKeyPair('PS256', { extractable: true });
    // The RSA key signs; the header claims ES256 with that RSA key.
    assert.equal(
      await refusal(verifier, await unsigned({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(rsa.publicKey) })),
      'ERR_JOSE_NOT_SUPPORTED',
    );
    assert.equal(
      await refusal(verifier, await unsigned({ alg: 'ES256', typ: 'dpop+jwt', jwk: client.jwk, crit: ['x'], x: 1 })),
      'ERR_JOSE_NOT_SUPPORTED',
    );
    assert.equal(
      await refusal(verifier, await proof(client.privateKey, { jwk: client.jwk, typ: 'JWT' })),
      'ERR_JWT_CLAIM_VALIDATION_FAILED',
    );
  });

  it('refuses an ES256 signature in DER form, a signature of other bytes and a proof of two parts', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const good = await proof(client.privateKey, { jwk: client.jwk });
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const raw = Buffer.from(signature, 'base64url');
    const der = derSignature(raw);
    assert.equal(
      await refusal(verifier, `${header}.${payload}.${der.toString('base64url')}`),
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
    const otherPayload = Buffer.from(JSON.stringify({ jti: 'other' })).toString('base64url');
    assert.equal(
      await refusal(verifier, `${header}.${otherPayload}.${signature}`),
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
    assert.equal(await refusal(verifier, `${header}.${payload}`), 'ERR_JWS_INVALID');
  });

  it('holds a proof that carries exp to it', async () => {
    const verifier = new JoseDpopProofVerifier(clock);
    const client = await key();
    const seconds = Math.floor(clock.now().getTime() / 1000);
    const expired = await new SignJWT({ iat: seconds, exp: seconds - 1, jti: randomUUID(), htm: 'GET', htu: URL_ })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: client.jwk })
      .sign(client.privateKey);
    assert.equal(await refusal(verifier, expired), 'ERR_JWT_EXPIRED');
  });
});

/** A proof with `header` and a signature of no key (enough for checks made before the signature). */
function unsigned(header: Record<string, unknown>): Promise<string> {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return Promise.resolve(`${encode(header)}.${encode({ jti: 'x' })}.${Buffer.alloc(64).toString('base64url')}`);
}

/** An ES256 signature (r||s, RFC 7518 §3.4) as DER, the form JWS does not use. */
function derSignature(raw: Buffer): Buffer {
  const integer = (bytes: Buffer) => {
    let value = bytes;
    while (value.length > 1 && value[0] === 0 && value[1]! < 0x80) value = value.subarray(1);
    if (value[0]! >= 0x80) value = Buffer.concat([Buffer.from([0]), value]);
    return Buffer.concat([Buffer.from([0x02, value.length]), value]);
  };
  const body = Buffer.concat([integer(raw.subarray(0, 32)), integer(raw.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}
