/**
 * Signed proofs a client sends instead of (or beside) a secret, with node:crypto only (the
 * package has no runtime dependencies): `private_key_jwt` client assertions (RFC 7523 §2.2)
 * and DPoP proofs (RFC 9449 §4). A compact JWS is a dozen lines; which algorithm follows
 * from the key: Ed25519 → EdDSA, P-256 → ES256, RSA → PS256.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  constants,
  type KeyObject,
} from 'node:crypto';
import type { FetchResponse, PrivateKeyObject } from './platform-types.js';

/**
 * A JSON Web Key (RFC 7517 §4, RFC 7518 §6) as a plain object. The package's own type, so that its
 * declarations do not depend on how a given `@types/node` names its JWK type (`crypto.JsonWebKey`
 * in some versions, `webcrypto.JsonWebKey` in others). A type alias, not an interface, so that it
 * is assignable to either.
 */
export type Jwk = {
  readonly kty: string;
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
  readonly n?: string;
  readonly e?: string;
  readonly d?: string;
  readonly p?: string;
  readonly q?: string;
  readonly dp?: string;
  readonly dq?: string;
  readonly qi?: string;
  readonly kid?: string;
  readonly alg?: string;
  readonly use?: string;
};

/** A private key as a `KeyObject`, a PEM string or a private JWK. */
export type PrivateKeyInput = PrivateKeyObject | string | Jwk;

interface SigningKey {
  readonly key: KeyObject;
  readonly alg: 'EdDSA' | 'ES256' | 'PS256';
}

function signingKey(input: PrivateKeyInput): SigningKey {
  const key =
    typeof input === 'string'
      ? createPrivateKey(input)
      : 'asymmetricKeyType' in input && typeof input.export === 'function'
        ? // Only Node's crypto makes objects of this shape (platform-types.ts).
          (input as KeyObject)
        : createPrivateKey({ key: input as Jwk, format: 'jwk' });
  if (key.type !== 'private') throw new TypeError('a private key is needed to sign');
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return { key, alg: 'EdDSA' };
    case 'ec':
      if (key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new TypeError('EC keys must be P-256 (ES256)');
      return { key, alg: 'ES256' };
    case 'rsa':
    case 'rsa-pss':
      return { key, alg: 'PS256' };
    default:
      throw new TypeError(`unsupported key type ${String(key.asymmetricKeyType)}: use Ed25519, P-256 or RSA`);
  }
}

function compactJws(signer: SigningKey, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${Buffer.from(JSON.stringify({ ...header, alg: signer.alg })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const data = Buffer.from(input);
  const signature =
    signer.alg === 'EdDSA'
      ? sign(null, data, signer.key)
      : signer.alg === 'ES256'
        ? sign('sha256', data, { key: signer.key, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', data, { key: signer.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  return `${input}.${signature.toString('base64url')}`;
}

/** `private_key_jwt`: a fresh assertion for every token request, valid for one minute. */
export class ClientAssertionSigner {
  readonly #signer: SigningKey;

  constructor(
    private readonly clientId: string,
    privateKey: PrivateKeyInput,
    /** The `kid` of the key in the registered JWKS (needed when it holds several). */
    private readonly keyId: string | undefined,
  ) {
    this.#signer = signingKey(privateKey);
  }

  /** `aud`: the token endpoint URL as the server names it (RFC 7523 §3). */
  assertion(audience: string, nowMs: number): string {
    const now = Math.floor(nowMs / 1000);
    return compactJws(
      this.#signer,
      { typ: 'JWT', ...(this.keyId ? { kid: this.keyId } : {}) },
      { iss: this.clientId, sub: this.clientId, aud: audience, jti: randomUUID(), iat: now, exp: now + 60 },
    );
  }
}

/** DPoP: one key for the client's life (made here unless given), a proof per request. */
export class DpopSigner {
  readonly #signer: SigningKey;
  readonly #jwk: Record<string, string | undefined>;
  /** The latest `DPoP-Nonce` each server origin asked for (RFC 9449 §8, §9). */
  readonly #nonces = new Map<string, string>();

  constructor(privateKey?: PrivateKeyInput) {
    this.#signer = signingKey(privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    const { kty, crv, x, y, n, e } = createPublicKey(this.#signer.key).export({ format: 'jwk' });
    this.#jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined));
  }

  /** A proof for `method url` (query and fragment left out), bound to `accessToken` when given. */
  proof(method: string, url: string, nowMs: number, accessToken?: string): string {
    const target = new URL(url);
    const nonce = this.#nonces.get(target.origin);
    return compactJws(
      this.#signer,
      { typ: 'dpop+jwt', jwk: this.#jwk },
      {
        htm: method,
        htu: `${target.origin}${target.pathname}`,
        iat: Math.floor(nowMs / 1000),
        jti: randomUUID(),
        ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
        ...(nonce ? { nonce } : {}),
      },
    );
  }

  /** Remembers a nonce the server sent; `true` when it is new (the request is worth repeating once). */
  rememberNonce(url: string, response: FetchResponse): boolean {
    const nonce = response.headers.get('dpop-nonce');
    if (!nonce) return false;
    const origin = new URL(url).origin;
    const known = this.#nonces.get(origin) === nonce;
    this.#nonces.set(origin, nonce);
    return !known;
  }
}
