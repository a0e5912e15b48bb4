/**
 * The JWS algorithms (RFC 7518 §3, RFC 8037 §3.1) coregate signs access tokens with.
 * EdDSA (Ed25519) is the default; ES256 and PS256 exist for HSMs and cloud key vaults
 * without Ed25519 (docs/operations.md#keys-in-an-hsm).
 */
export const SIGNING_ALGS = ['EdDSA', 'ES256', 'PS256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export function isSigningAlg(value: string): value is SigningAlg {
  return (SIGNING_ALGS as readonly string[]).includes(value);
}

/** Where the private signing keys are kept: sealed in the database (`file`) or on a PKCS#11 token. */
export const KEY_STORES = ['file', 'pkcs11'] as const;
