/**
 * Who keeps the private signing keys and signs with them. Two adapters: the database
 * (the private JWK sealed with the encryption key, `file-key-custody.ts`) and a PKCS#11
 * token (`pkcs11/`), where the key is generated and never leaves. A cloud KMS (AWS KMS,
 * Google Cloud KMS) would be a third: `generate` is its CreateKey, `signer` its Sign,
 * the public JWK its GetPublicKey (docs/operations.md#keys-in-an-hsm).
 *
 * The key's metadata (kid, alg, public JWK, when it retires) stays in the database
 * (`SigningKeyStore`) for every custody, so that every process publishes the same JWKS;
 * the stored private part is then the sealed JWK or a reference to the key in custody.
 */
import type { SigningAlg } from '../domain/signing-alg.js';

/** A key pair just made: what the database keeps of it. */
export interface CustodyKey {
  /** The public key as a JWK (without kid, alg or use). */
  readonly publicJwk: Readonly<Record<string, unknown>>;
  /** What the database stores as the private part: the sealed private JWK, or a reference to the key in custody. */
  readonly privatePart: string;
}

/** Signs a JWS signing input (RFC 7515 §5.1) and returns the signature as JWS wants it (raw r||s for ECDSA). */
export type JwsSign = (signingInput: Buffer) => Promise<Buffer>;

export interface SigningKeyCustody {
  /** `file` or `pkcs11`: in logs and metrics. */
  readonly name: string;
  /** Whether this custody keeps the private part stored as `privatePart` (else another custody made it). */
  holds(privatePart: string): boolean;
  /** Generates a key pair for `alg`, its private part kept by this custody. */
  generate(kid: string, alg: SigningAlg): Promise<CustodyKey>;
  /** The signing function of a key this custody {@link holds}. */
  signer(key: { readonly kid: string; readonly alg: SigningAlg; readonly privatePart: string }): Promise<JwsSign>;
  /** The kids of the keys whose private parts this custody keeps apart from the database (none for the database itself). */
  heldKids(): Promise<readonly string[]>;
  /** Destroys a key's private part (a key retired and out of the JWKS, or never activated); no such key is no error. */
  destroy(kid: string): Promise<void>;
}

/**
 * The keys' custody cannot sign now (an HSM that does not answer, a session lost): the
 * token endpoint answers 503 `temporarily_unavailable` with Retry-After and `/readyz`
 * is not ready until it can again. `detail` is for the log (never a PIN or key material).
 */
export class KeyCustodyUnavailable extends Error {
  override readonly name = 'KeyCustodyUnavailable';

  constructor(
    readonly detail: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(detail);
  }
}

/** What signing records: one signature or failure, its custody, algorithm and duration. */
export interface SigningMetrics {
  signed(custody: string, alg: SigningAlg, outcome: 'ok' | 'error', seconds: number): void;
}
