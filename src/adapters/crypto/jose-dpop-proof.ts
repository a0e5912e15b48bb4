/**
 * DPoP proofs (RFC 9449 §4.3) verified with jose: the key is the proof's own header `jwk`,
 * its thumbprint (RFC 7638) what a bound token's `cnf.jkt` names. The single use of `jti`
 * is the caller's (`app/dpop-proofs.ts`), across processes.
 *
 * A client signs every request with the same key and header, so what is read from the
 * header — its checks, the key's thumbprint and the imported key — is kept by the header's
 * encoded text: importing the JWK cost more than verifying the signature with it
 * (docs/benchmarks.md, "DPoP-bound tokens"). The same text always says the same, so an
 * entry never goes stale; the signature is still checked on every proof.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify } from 'jose';
import {
  InvalidProof,
  type DpopProofExpectation,
  type DpopProofVerifier,
  type VerifiedDpopProof,
} from '../../ports/client-proofs.js';
import type { Clock } from '../../ports/clock.js';
import { LoadingCache } from '../../ports/loading-cache.js';

/** Asymmetric algorithms only (RFC 9449 §4.2); EdDSA also under its RFC 9864 name. */
const DPOP_ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'PS256'] as const;
/** How far a proof's `iat` may be from now, either way. */
const DPOP_IAT_WINDOW_SECONDS = 60;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/**
 * `htu` without query and fragment (RFC 9449 §4.3 point 9), or `undefined` when it is no URL
 * or carries user information (`https://user@host/…`): a request URL never does, so such an
 * `htu` names no request of ours.
 */
function withoutQuery(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url))
      return undefined;
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** Proof headers kept: about one per client key in use; the least recently used goes first. */
const PROOF_HEADER_CACHE_ENTRIES = 10_000;
/**
 * Longer headers are checked every time, not kept: anyone may send proofs, so what is kept
 * stays small (at most about 12 MB of text). An ES256 or EdDSA header is about 250
 * characters, a PS256 one with a 4096-bit key about 1,000.
 */
const MAX_KEPT_HEADER_CHARS = 1200;

/** What a proof's protected header gives once checked: its key, imported, and that key's thumbprint. */
interface ProofKey {
  readonly key: Awaited<ReturnType<typeof importJWK>>;
  readonly jkt: string;
}

/** Reads and checks a protected header (its encoded text) and imports its key. Throws {@link InvalidProof}. */
async function proofKey(encodedHeader: string): Promise<ProofKey> {
  const { alg, jwk } = decodeProtectedHeader(`${encodedHeader}..`);
  if (typeof alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(alg))
    throw new InvalidProof('alg missing or not allowed');
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new InvalidProof('no jwk in the header');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidProof('the header jwk is a private key');
  return { key: await importJWK({ ...jwk, ext: true }, alg), jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

export class JoseDpopProofVerifier implements DpopProofVerifier {
  readonly algorithms = DPOP_ALGORITHMS;
  /** Checked headers by their encoded text; a header that fails its checks is not kept. */
  private readonly headers: LoadingCache<ProofKey>;

  constructor(clock: Clock) {
    this.headers = new LoadingCache(proofKey, { clock, maxEntries: PROOF_HEADER_CACHE_ENTRIES });
  }

  async verify(proof: string, expected: DpopProofExpectation): Promise<VerifiedDpopProof> {
    let payload;
    let jkt: string;
    try {
      const encodedHeader = proof.slice(0, Math.max(0, proof.indexOf('.')));
      const header =
        encodedHeader.length <= MAX_KEPT_HEADER_CHARS
          ? (await this.headers.get(encodedHeader))!
          : await proofKey(encodedHeader);
      jkt = header.jkt;
      ({ payload } = await jwtVerify(proof, header.key, {
        typ: 'dpop+jwt',
        algorithms: [...DPOP_ALGORITHMS],
        currentDate: expected.now,
        requiredClaims: ['iat', 'jti', 'htm', 'htu'],
      }));
    } catch (error) {
      if (error instanceof InvalidProof) throw error;
      if (error instanceof joseErrors.JOSEError) throw new InvalidProof(error.code);
      throw new InvalidProof(error instanceof Error ? error.message : 'unreadable proof');
    }
    const { iat, jti, htm, htu, ath, nonce } = payload as Record<string, unknown>;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
      throw new InvalidProof('jti missing or not a short string');
    if (typeof iat !== 'number' || Math.abs(iat - expected.now.getTime() / 1000) > DPOP_IAT_WINDOW_SECONDS)
      throw new InvalidProof('iat outside the window');
    if (htm !== expected.method) throw new InvalidProof('htm is not the request method');
    if (typeof htu !== 'string' || withoutQuery(htu) !== withoutQuery(expected.url))
      throw new InvalidProof('htu is not the request URL');
    if (expected.accessToken !== undefined) {
      const hash = createHash('sha256').update(expected.accessToken).digest('base64url');
      if (ath !== hash) throw new InvalidProof('ath is not the hash of the access token');
    }
    if (expected.nonces !== undefined && (typeof nonce !== 'string' || !expected.nonces.includes(nonce)))
      throw new InvalidProof('nonce missing or stale');
    return { jkt, jti, iat: Math.floor(iat) };
  }
}
