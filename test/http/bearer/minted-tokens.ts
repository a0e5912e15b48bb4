/**
 * Tokens signed with the server's own active key, unsealed as `JoseKeyring` does it,
 * carrying claims the server would never issue (another `typ`, `aud`, `token_use`, …)
 * whose signature is nevertheless good: only the claim and header checks can refuse them.
 */
import assert from 'node:assert/strict';
import { importJWK, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { AesGcmSealer } from '../../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKeys } from '../../../src/adapters/crypto/encryption-keys.js';
import { SqlSigningKeyStore } from '../../../src/adapters/store/sql-signing-key-store.js';
import type { Harness } from '../../support/harness.js';

export async function serverSigningKey(h: Harness): Promise<{ kid: string; key: CryptoKey }> {
  const published = await new SqlSigningKeyStore(h.services.database).listPublished(h.clock.now());
  const active = published.find((key) => key.retiredAt === null) ?? assert.fail('no active signing key');
  const sealer = new AesGcmSealer(encryptionKeys(h.services.config));
  const jwk = JSON.parse(sealer.open(active.privateSealed, `signing-key:${active.kid}`)) as JWK;
  return { kid: active.kid, key: (await importJWK(jwk, 'EdDSA')) as CryptoKey };
}

export function mint(claims: JWTPayload, header: Record<string, unknown>, key: CryptoKey): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', ...header }).sign(key);
}
