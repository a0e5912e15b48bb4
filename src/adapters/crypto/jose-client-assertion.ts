/**
 * `private_key_jwt` client assertions (RFC 7523 §3, RFC 7521 §4.2) verified with jose
 * against the client's registered JWKS.
 */
import {
  createLocalJWKSet,
  decodeJwt,
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
      if (error instanceof joseErrors.JOSEError) throw new InvalidProof(error.code);
      throw new InvalidProof(error instanceof Error ? error.message : 'unreadable assertion');
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
