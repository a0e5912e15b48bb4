/**
 * The JWS algorithms coregate signs with, as node:crypto signs and verifies them
 * (RFC 7518 §3.4 for ES256's raw r||s signature, §3.5 for PS256's salt of the hash's
 * length; RFC 8037 §3.1 for EdDSA over Ed25519).
 */
import { constants, sign as cryptoSign, type KeyObject, type SignKeyObjectInput } from 'node:crypto';
import type { SigningAlg } from '../../domain/signing-alg.js';

/** Signs `signingInput` with a node:crypto private key the way the JWS `alg` says. */
export function signJws(alg: SigningAlg, key: KeyObject, signingInput: Buffer): Buffer {
  switch (alg) {
    case 'EdDSA':
      return cryptoSign(null, signingInput, key);
    case 'ES256':
      return cryptoSign('sha256', signingInput, { key, dsaEncoding: 'ieee-p1363' } satisfies SignKeyObjectInput);
    case 'PS256':
      return cryptoSign('sha256', signingInput, {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: 32,
      } satisfies SignKeyObjectInput);
  }
}
