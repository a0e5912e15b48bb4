/**
 * `private_key_jwt` client assertions (RFC 7523 §3, RFC 7521 §4.2) verified with jose
 * against the client's registered JWKS.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
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
/**
 * `typ` values of a client assertion: none, the generic `JWT`, or the explicit type of
 * draft-ietf-oauth-rfc7523bis. Any other type (`dpop+jwt`, `at+jwt`) is a JWT made for
 * something else and is never taken as a client's proof of its key.
 */
const ASSERTION_TYPES = new Set([undefined, 'jwt', 'client-authentication+jwt']);

/**
 * Keys as jose matches them: an Ed25519 key registered with `alg: "EdDSA"` also verifies an
 * assertion whose header says `Ed25519` (RFC 9864 names the same algorithm so), and the reverse.
 * The curve names the algorithm; `alg` is left out for those keys.
 */
function withEd25519Aliases(jwks: ClientJwks): JSONWebKeySet {
  return {
    keys: jwks.keys.map((key) => {
      if (key['crv'] !== 'Ed25519' || (key['alg'] !== 'EdDSA' && key['alg'] !== 'Ed25519')) return key;
      const { alg: _alg, ...rest } = key;
      return rest;
    }),
  };
}

type DecoyAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/**
 * A public key of `alg`'s kind that no assertion was ever signed with (its private key is
 * dropped at once). Made on first use rather than at start: an RSA key pair takes a noticeable
 * moment of CPU that every server start and every CLI command would pay for nothing.
 */
async function decoyKey(alg: DecoyAlgorithm): Promise<KeyObject> {
  const generate = promisify(generateKeyPair);
  if (alg === 'ES256') return (await generate('ec', { namedCurve: 'P-256' })).publicKey;
  if (alg === 'PS256') return (await generate('rsa-pss', { modulusLength: 2048 })).publicKey;
  return (await generate('ed25519')).publicKey;
}

export class JoseClientAssertionVerifier implements ClientAssertionVerifier {
  /** The key set of each client record: the records are cached, so is this. */
  private readonly keySets = new WeakMap<ClientJwks, JWTVerifyGetKey>();
  private readonly decoys = new Map<DecoyAlgorithm, Promise<KeyObject>>();

  async verifyAgainstDecoy(assertion: string): Promise<void> {
    let alg: unknown;
    try {
      ({ alg } = decodeProtectedHeader(assertion));
    } catch {
      // Unreadable: a real client's check ends here too.
      return;
    }
    if (!(CLIENT_ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg)) return;
    const algorithm = alg as DecoyAlgorithm;
    // EdDSA and Ed25519 name the same kind of key: one decoy serves both.
    const kind = algorithm === 'Ed25519' ? 'EdDSA' : algorithm;
    let key = this.decoys.get(kind);
    if (key === undefined) this.decoys.set(kind, (key = decoyKey(kind)));
    await jwtVerify(assertion, await key, { algorithms: [algorithm] }).catch(() => {});
  }

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
    let protectedHeader;
    try {
      ({ payload, protectedHeader } = await jwtVerify(assertion, this.keySet(jwks), {
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
    const typ = protectedHeader.typ?.toLowerCase();
    if (!ASSERTION_TYPES.has(typ === undefined ? undefined : typ.replace(/^application\//, '')))
      throw new InvalidProof(`typ ${protectedHeader.typ} is not a client assertion's`);
    // One audience, exactly one of ours: a list may name other servers, which could then replay
    // it here (the audience injection draft-ietf-oauth-rfc7523bis closes). See docs/client-security.md.
    if (typeof payload.aud !== 'string') throw new InvalidProof('aud is not a single string');
    const nowSeconds = Math.floor(expected.now.getTime() / 1000);
    if (payload.iat !== undefined && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS)
      throw new InvalidProof('iat in the future');
    const { jti, exp } = payload as { jti: unknown; exp: number };
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
      throw new InvalidProof('jti missing or not a short string');
    if (exp > nowSeconds + MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
      throw new InvalidProof('exp more than 5 minutes ahead');
    return { jti, exp };
  }

  private keySet(jwks: ClientJwks): JWTVerifyGetKey {
    let keySet = this.keySets.get(jwks);
    if (!keySet) this.keySets.set(jwks, (keySet = createLocalJWKSet(withEd25519Aliases(jwks))));
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
