/**
 * DPoP proofs (RFC 9449 §4.3) verified with jose: the key is the proof's own header `jwk`,
 * its thumbprint (RFC 7638) what a bound token's `cnf.jkt` names. The single use of `jti`
 * is the caller's (`app/dpop-proofs.ts`), across processes.
 *
 * A client signs every request with the same key, so the imported key is kept by algorithm
 * and thumbprint: importing the header's JWK cost more than verifying the signature with it
 * (docs/benchmarks.md, the DPoP accounts row). The thumbprint is a hash of the key's required
 * members, so an entry never goes stale.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify, type JWK } from 'jose';
import { InvalidProof, type DpopProofExpectation, type DpopProofVerifier, type VerifiedDpopProof } from '../../ports/client-proofs.js';
import type { Clock } from '../../ports/clock.js';
import { LoadingCache } from '../../ports/loading-cache.js';

/** Asymmetric algorithms only (RFC 9449 §4.2); EdDSA also under its RFC 9864 name. */
export const DPOP_ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'PS256'] as const;
/** How far a proof's `iat` may be from now, either way. */
const DPOP_IAT_WINDOW_SECONDS = 60;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** `htu` without query and fragment (RFC 9449 §4.3 point 9), or `undefined` when it is no URL. */
function withoutQuery(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** Proof keys kept imported: one per client key in use, and the least recently used goes first. */
const PROOF_KEY_CACHE_ENTRIES = 10_000;

type ProofKey = Awaited<ReturnType<typeof importJWK>>;

export class JoseDpopProofVerifier implements DpopProofVerifier {
  readonly algorithms = DPOP_ALGORITHMS;
  /** Imported header keys by `alg` and thumbprint; the header's JWK is the load's context. */
  private readonly keys: LoadingCache<ProofKey, JWK>;

  constructor(clock: Clock) {
    this.keys = new LoadingCache((key, jwk) => importJWK({ ...jwk, ext: true }, key.split(' ', 1)[0]), { clock, maxEntries: PROOF_KEY_CACHE_ENTRIES });
  }

  async verify(proof: string, expected: DpopProofExpectation): Promise<VerifiedDpopProof> {
    let payload;
    let jkt: string;
    try {
      const { alg, jwk } = decodeProtectedHeader(proof);
      if (typeof alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(alg)) throw new InvalidProof('alg missing or not allowed');
      if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new InvalidProof('no jwk in the header');
      if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidProof('the header jwk is a private key');
      jkt = await calculateJwkThumbprint(jwk, 'sha256');
      const key = (await this.keys.get(`${alg} ${jkt}`, { context: jwk }))!;
      ({ payload } = await jwtVerify(proof, key, {
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
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw new InvalidProof('jti missing or not a short string');
    if (typeof iat !== 'number' || Math.abs(iat - expected.now.getTime() / 1000) > DPOP_IAT_WINDOW_SECONDS) throw new InvalidProof('iat outside the window');
    if (htm !== expected.method) throw new InvalidProof('htm is not the request method');
    if (typeof htu !== 'string' || withoutQuery(htu) !== withoutQuery(expected.url)) throw new InvalidProof('htu is not the request URL');
    if (expected.accessToken !== undefined) {
      const hash = createHash('sha256').update(expected.accessToken).digest('base64url');
      if (ath !== hash) throw new InvalidProof('ath is not the hash of the access token');
    }
    if (expected.nonces !== undefined && (typeof nonce !== 'string' || !expected.nonces.includes(nonce))) throw new InvalidProof('nonce missing or stale');
    return { jkt, jti, iat: Math.floor(iat) };
  }
}
