/**
 * DPoP proofs (RFC 9449 §4.3): the key is the proof's own header `jwk`, its thumbprint
 * (RFC 7638) what a bound token's `cnf.jkt` names. The single use of `jti` is the caller's
 * (`app/dpop-proofs.ts`), across processes.
 *
 * A client signs every request with the same key and header, so what is read from the
 * header — its checks, the key's thumbprint and the key as a node:crypto `KeyObject` — is
 * kept by the header's encoded text: importing the JWK costs more than verifying the
 * signature with it. The same text always says the same, so an entry never goes stale; the
 * signature is still checked on every proof.
 *
 * The signature is checked with node:crypto's one-shot `verify` (RFC 7515 §5.2 on the three
 * allowed algorithms) rather than jose's `jwtVerify`, which goes through WebCrypto: a proof
 * comes with every read of a DPoP-bound client, and the WebCrypto path costs a large share of
 * such a read (docs/benchmarks.md, "DPoP-bound tokens"). jose still reads the header and makes
 * the thumbprint, once per key; the refusal reasons keep jose's error codes.
 */
import { constants, createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
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

type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/** What a proof's protected header gives once checked: its key, ready to verify with, and that key's thumbprint. */
interface ProofKey {
  readonly verify: (signedText: Buffer, signature: Buffer) => boolean;
  readonly jkt: string;
}

/** The key type each algorithm needs (RFC 7518 §3.4, §3.5; RFC 8037 §3.1), and how it verifies. */
function verifierFor(alg: DpopAlgorithm, key: KeyObject): ProofKey['verify'] {
  const details = key.asymmetricKeyDetails;
  switch (alg) {
    case 'ES256':
      if (key.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1')
        throw new InvalidProof('ERR_JOSE_NOT_SUPPORTED');
      // JWS carries the raw r||s pair (RFC 7518 §3.4), not DER.
      return (text, signature) =>
        signature.length === 64 && verify('sha256', text, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'PS256':
      if (key.asymmetricKeyType !== 'rsa' || (details?.modulusLength ?? 0) < 2048)
        throw new InvalidProof('ERR_JOSE_NOT_SUPPORTED');
      return (text, signature) =>
        verify(
          'sha256',
          text,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
          signature,
        );
    case 'EdDSA':
    case 'Ed25519':
      if (key.asymmetricKeyType !== 'ed25519') throw new InvalidProof('ERR_JOSE_NOT_SUPPORTED');
      return (text, signature) => verify(null, text, key, signature);
  }
}

/** Reads and checks a protected header (its encoded text) and makes its key. Throws {@link InvalidProof}. */
async function proofKey(encodedHeader: string): Promise<ProofKey> {
  let header;
  try {
    header = decodeProtectedHeader(`${encodedHeader}..`);
  } catch {
    throw new InvalidProof('ERR_JWS_INVALID');
  }
  const { alg, jwk, typ, crit } = header;
  if (typeof alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(alg))
    throw new InvalidProof('alg missing or not allowed');
  // RFC 9449 §4.3 point 4; `typ` compared as jose's `typ` option does (RFC 7515 §4.1.9).
  if (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== 'dpop+jwt')
    throw new InvalidProof('ERR_JWT_CLAIM_VALIDATION_FAILED');
  // No extension is understood, so none may be critical (RFC 7515 §4.1.11).
  if (crit !== undefined) throw new InvalidProof('ERR_JOSE_NOT_SUPPORTED');
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new InvalidProof('no jwk in the header');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidProof('the header jwk is a private key');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JWK & { kty: string }, format: 'jwk' });
  } catch {
    throw new InvalidProof('ERR_JWK_INVALID');
  }
  return { verify: verifierFor(alg as DpopAlgorithm, key), jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** The payload of a proof whose signature `key` verifies, as an object. Throws {@link InvalidProof}. */
function verifiedPayload(proof: string, key: ProofKey, now: Date): Record<string, unknown> {
  const firstDot = proof.indexOf('.');
  const lastDot = proof.lastIndexOf('.');
  if (firstDot <= 0 || lastDot === firstDot || proof.indexOf('.', firstDot + 1) !== lastDot)
    throw new InvalidProof('ERR_JWS_INVALID');
  const signature = Buffer.from(proof.slice(lastDot + 1), 'base64url');
  if (!key.verify(Buffer.from(proof.slice(0, lastDot)), signature))
    throw new InvalidProof('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(proof.slice(firstDot + 1, lastDot), 'base64url').toString('utf8'));
  } catch {
    throw new InvalidProof('ERR_JWT_INVALID');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new InvalidProof('ERR_JWT_INVALID');
  const { exp, nbf } = payload as Record<string, unknown>;
  const seconds = Math.floor(now.getTime() / 1000);
  // A proof needs neither; one that carries them is held to them (RFC 7519 §4.1.4, §4.1.5).
  if (exp !== undefined && (typeof exp !== 'number' || exp <= seconds)) throw new InvalidProof('ERR_JWT_EXPIRED');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > seconds))
    throw new InvalidProof('ERR_JWT_CLAIM_VALIDATION_FAILED');
  return payload as Record<string, unknown>;
}

export class JoseDpopProofVerifier implements DpopProofVerifier {
  readonly algorithms = DPOP_ALGORITHMS;
  /** Checked headers by their encoded text; a header that fails its checks is not kept. */
  private readonly headers: LoadingCache<ProofKey>;

  constructor(clock: Clock) {
    this.headers = new LoadingCache(proofKey, { clock, maxEntries: PROOF_HEADER_CACHE_ENTRIES });
  }

  async verify(proof: string, expected: DpopProofExpectation): Promise<VerifiedDpopProof> {
    const encodedHeader = proof.slice(0, Math.max(0, proof.indexOf('.')));
    const header =
      encodedHeader.length <= MAX_KEPT_HEADER_CHARS
        ? (await this.headers.get(encodedHeader))!
        : await proofKey(encodedHeader);
    const jkt = header.jkt;
    const payload = verifiedPayload(proof, header, expected.now);
    const { iat, jti, htm, htu, ath, nonce } = payload;
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
