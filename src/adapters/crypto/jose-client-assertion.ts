/**
 * `private_key_jwt` client assertions (RFC 7523 §3, RFC 7521 §4.2) verified with jose
 * against the client's registered JWKS.
 */
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { ClientJwks } from '../../domain/client.js';
import { InvalidProof, type ClientAssertionVerifier, type VerifiedAssertion } from '../../ports/client-proofs.js';

/** EdDSA also under its RFC 9864 name; no `none`, no HMAC (a shared secret is what this method replaces). */
export const CLIENT_ASSERTION_ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'PS256'] as const;
/** An assertion may be valid for five minutes at most: a captured one is worth little. */
const MAX_LIFETIME_SECONDS = 300;
/** Clock differences between the client and coregate. */
const CLOCK_TOLERANCE_SECONDS = 30;

export class JoseClientAssertionVerifier implements ClientAssertionVerifier {
  /** The key set of each client record: the records are cached, so is this. */
  private readonly keySets = new WeakMap<ClientJwks, JWTVerifyGetKey>();

  claimedClient(assertion: string): string | undefined {
    try {
      const { iss, sub } = decodeJwt(assertion);
      return typeof iss === 'string' && iss === sub ? iss : undefined;
    } catch {
      return undefined;
    }
  }

  async verify(
    assertion: string,
    jwks: ClientJwks,
    expected: { clientId: string; audiences: readonly string[]; now: Date },
  ): Promise<VerifiedAssertion> {
    let payload;
    try {
      ({ payload } = await jwtVerify(assertion, this.keySet(jwks), {
        algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
        issuer: expected.clientId,
        subject: expected.clientId,
        audience: [...expected.audiences],
        currentDate: expected.now,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      }));
    } catch (error) {
      throw new InvalidProof(refusalReason(error, assertion));
    }
    const { jti, exp } = payload as { jti: unknown; exp: number };
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
      throw new InvalidProof('jti missing or not a short string');
    if (exp > Math.floor(expected.now.getTime() / 1000) + MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
      throw new InvalidProof('exp more than 5 minutes ahead');
    return { jti, exp };
  }

  private keySet(jwks: ClientJwks): JWTVerifyGetKey {
    let keySet = this.keySets.get(jwks);
    if (!keySet) this.keySets.set(jwks, (keySet = createLocalJWKSet(jwks as unknown as JSONWebKeySet)));
    return keySet;
  }
}

/**
 * Why jose refused an assertion, in words for the log line: which claim failed (`aud`, `iss`,
 * `exp`, …), which key was not found. Only the claim's name and jose's fixed text, never a
 * claim's value or the assertion.
 */
function refusalReason(error: unknown, assertion: string): string {
  if (error instanceof joseErrors.JWTExpired) return 'claim exp failed: the assertion has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `claim ${error.claim} failed: ${error.message}`;
  if (error instanceof joseErrors.JWKSNoMatchingKey) {
    const { kid, alg } = safeHeader(assertion);
    return `no key of the client's JWKS matches the assertion (kid ${kid}, alg ${alg})`;
  }
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
    return "several keys of the client's JWKS match the assertion: it must name one by kid";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the signature does not verify';
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return `alg ${safeHeader(assertion).alg} is not accepted (${CLIENT_ASSERTION_ALGORITHMS.join(', ')})`;
  if (error instanceof joseErrors.JOSEError) return `${error.code}: ${error.message}`;
  return 'unreadable assertion';
}

/** The header's `kid` and `alg` as printable names (at most 64 characters each), or `none`. */
function safeHeader(assertion: string): { kid: string; alg: string } {
  const printable = (value: unknown) =>
    typeof value === 'string' && /^[\x21-\x7e]{1,64}$/.test(value) ? JSON.stringify(value) : 'none';
  try {
    const { kid, alg } = decodeProtectedHeader(assertion);
    return { kid: printable(kid), alg: printable(alg) };
  } catch {
    return { kid: 'none', alg: 'none' };
  }
}
