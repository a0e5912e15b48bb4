/**
 * Access-token signing and verification with keys kept in the database (private
 * parts sealed), so every process and every restart signs with the same key and
 * accepts the same tokens. Keys are cached in memory and re-read periodically, or
 * at once when a token names a key this process has not seen yet (another
 * process rotated), at most once per `minReloadIntervalMs`.
 */
import { createPrivateKey, randomUUID, sign as cryptoSign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, errors as joseErrors, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';
import type { Clock } from '../../ports/clock.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import { ActiveKeyConflict, type SigningKeyStore, type StoredSigningKey } from '../../ports/signing-key-store.js';
import { InvalidAccessToken, type AccessTokenClaims, type PublicJwks, type TokenSigner, type TokenVerifier } from '../../ports/token-signer.js';

const ALG = 'EdDSA';
/** RFC 9068 media type of JWT access tokens: stops an ID token or other JWT being replayed as one. */
const ACCESS_TOKEN_TYP = 'at+jwt';

export interface KeyringOptions {
  /** The issuer; a function because it may be known only once the server listens. */
  readonly issuer: () => string;
  /** Retired keys stay published this long: the longest an access token they signed can live. */
  readonly accessTokenTtlSeconds: number;
  readonly cacheSeconds?: number;
  readonly minReloadIntervalMs?: number;
}

interface LoadedKeys {
  readonly activeKid: string;
  /** The active private key as a node:crypto KeyObject: signing is the token endpoint's hot path. */
  readonly signingKey: KeyObject;
  /** The encoded protected header of tokens signed with the active key. */
  readonly encodedHeader: string;
  readonly verificationKeys: ReadonlyMap<string, CryptoKey>;
  readonly jwks: PublicJwks;
  readonly loadedAt: number;
}

function sealContext(kid: string): string {
  return `signing-key:${kid}`;
}

/** Verified tokens remembered; the oldest is forgotten first. */
const VERIFIED_CACHE_ENTRIES = 10_000;

export class JoseKeyring implements TokenSigner, TokenVerifier {
  private loaded: LoadedKeys | undefined;
  private readonly verified = new Map<string, AccessTokenClaims>();
  private loading: Promise<LoadedKeys> | undefined;
  private readonly cacheMs: number;
  private readonly minReloadIntervalMs: number;

  constructor(
    private readonly store: SigningKeyStore,
    private readonly sealer: SecretSealer,
    private readonly clock: Clock,
    private readonly options: KeyringOptions,
  ) {
    this.cacheMs = (options.cacheSeconds ?? 30) * 1000;
    this.minReloadIntervalMs = options.minReloadIntervalMs ?? 1000;
  }

  /** Creates the first signing key if the database has none (safe when processes race). */
  async ensureActiveKey(): Promise<void> {
    const published = await this.store.listPublished(this.clock.now());
    if (published.some((key) => key.retiredAt === null)) return;
    try {
      await this.store.activate(await this.generate(), { retireActive: false, publishUntil: this.clock.now() });
    } catch (error) {
      if (!(error instanceof ActiveKeyConflict)) throw error;
    }
    this.loaded = undefined;
  }

  /** Publishes a new active key; the old one stays in the JWKS until its tokens have expired. */
  async rotate(): Promise<{ kid: string; previousKeysPublishedUntil: Date }> {
    const key = await this.generate();
    const publishUntil = new Date(key.createdAt.getTime() + this.options.accessTokenTtlSeconds * 1000 + 60_000);
    await this.store.activate(key, { retireActive: true, publishUntil });
    this.loaded = undefined;
    return { kid: key.kid, previousKeysPublishedUntil: publishUntil };
  }

  /**
   * A compact JWS (RFC 7515) signed with node:crypto directly: jose goes through
   * WebCrypto, whose Ed25519 signature costs nearly twice as much, and rebuilds the
   * header every time. Verification stays with jose.
   */
  async sign(claims: AccessTokenClaims): Promise<string> {
    const keys = await this.keys();
    const signingInput = `${keys.encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signingInput}.${cryptoSign(null, Buffer.from(signingInput), keys.signingKey).toString('base64url')}`;
  }

  async jwks(): Promise<PublicJwks> {
    return (await this.keys()).jwks;
  }

  async verify(token: string, now: Date): Promise<AccessTokenClaims> {
    // A signature verifies the same way every time: a token verified once needs only
    // its lifetime checked again. An Ed25519 verification costs more than a whole
    // proxied request, and platforms send the same token for up to an hour.
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp > Math.floor(now.getTime() / 1000)) return cached;
      this.verified.delete(token);
      throw new InvalidAccessToken('ERR_JWT_EXPIRED');
    }
    const claims = await this.verifySignedToken(token, now);
    if (this.verified.size >= VERIFIED_CACHE_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims);
    return claims;
  }

  private async verifySignedToken(token: string, now: Date): Promise<AccessTokenClaims> {
    const resolveKey = async (header: JWTHeaderParameters): Promise<CryptoKey> => {
      if (!header.kid) throw new InvalidAccessToken('no kid in header');
      let keys = await this.keys();
      if (!keys.verificationKeys.has(header.kid) && this.clock.now().getTime() - keys.loadedAt >= this.minReloadIntervalMs) {
        keys = await this.keys(true);
      }
      const key = keys.verificationKeys.get(header.kid);
      if (!key) throw new InvalidAccessToken('unknown kid');
      return key;
    };
    try {
      const { payload } = await jwtVerify(token, resolveKey, {
        issuer: this.options.issuer(),
        algorithms: [ALG],
        typ: ACCESS_TOKEN_TYP,
        currentDate: now,
        requiredClaims: ['iss', 'sub', 'exp', 'iat', 'jti', 'scope', 'client_id'],
      });
      if (payload['token_use'] !== 'access' || typeof payload['scope'] !== 'string' || typeof payload['client_id'] !== 'string') {
        throw new InvalidAccessToken('not an access token');
      }
      return payload as unknown as AccessTokenClaims;
    } catch (error) {
      if (error instanceof InvalidAccessToken) throw error;
      if (error instanceof joseErrors.JOSEError) throw new InvalidAccessToken(error.code);
      throw error;
    }
  }

  private async keys(forceReload = false): Promise<LoadedKeys> {
    const loaded = this.loaded;
    if (!forceReload && loaded && this.clock.now().getTime() - loaded.loadedAt < this.cacheMs) return loaded;
    // Concurrent callers share one pending reload.
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<LoadedKeys> {
    let published = await this.store.listPublished(this.clock.now());
    if (!published.some((key) => key.retiredAt === null)) {
      await this.ensureActiveKey();
      published = await this.store.listPublished(this.clock.now());
    }
    const active = published.find((key) => key.retiredAt === null);
    if (!active) throw new Error('no active signing key');
    const verificationKeys = new Map<string, CryptoKey>();
    for (const key of published) {
      verificationKeys.set(key.kid, (await importJWK(key.publicJwk as JWK, ALG)) as CryptoKey);
    }
    const privateJwk = JSON.parse(this.sealer.open(active.privateSealed, sealContext(active.kid))) as JWK;
    const loaded: LoadedKeys = {
      activeKid: active.kid,
      signingKey: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }),
      encodedHeader: Buffer.from(JSON.stringify({ alg: ALG, kid: active.kid, typ: ACCESS_TOKEN_TYP })).toString('base64url'),
      verificationKeys,
      jwks: { keys: published.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: ALG, use: 'sig' })) },
      loadedAt: this.clock.now().getTime(),
    };
    this.loaded = loaded;
    return loaded;
  }

  private async generate(): Promise<StoredSigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = randomUUID();
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    return {
      kid,
      alg: ALG,
      publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x },
      privateSealed: this.sealer.seal(JSON.stringify(privateJwk), sealContext(kid)),
      createdAt: this.clock.now(),
      retiredAt: null,
      publishUntil: null,
    };
  }
}
