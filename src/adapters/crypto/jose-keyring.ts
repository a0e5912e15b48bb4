/**
 * Access-token signing and verification with keys listed in the database, so every
 * process and every restart signs with the same key and accepts the same tokens. The
 * private parts are kept by a custody (`signing-key-custody.ts`): sealed in the rows,
 * or on a PKCS#11 token that signs for us (docs/operations.md#keys-in-an-hsm). Keys are cached in memory and re-read periodically, or
 * at once when a token names a key this process has not seen yet (another
 * process rotated), at most once per `minReloadIntervalMs`. After a change to the
 * keys announced by the change feed (a rotation or `keys revoke` in any process) the
 * next use reads them again ({@link JoseKeyring.forgetAll}).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { importJWK, jwtVerify, errors as joseErrors, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';
import { isWellFormedClientId } from '../../domain/client.js';
import { isSigningAlg, SIGNING_ALGS, type SigningAlg } from '../../domain/signing-alg.js';
import type { Clock } from '../../ports/clock.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { LoadingCache } from '../../ports/loading-cache.js';
import {
  KeyCustodyUnavailable,
  type JwsSign,
  type SigningKeyCustody,
  type SigningMetrics,
} from '../../ports/signing-key-custody.js';
import { ActiveKeyConflict, type SigningKeyStore, type StoredSigningKey } from '../../ports/signing-key-store.js';
import {
  AccessTokenForAnotherAudience,
  InvalidAccessToken,
  type AccessTokenClaims,
  type PublicJwks,
  type TokenSigner,
  type TokenVerifier,
} from '../../ports/token-signer.js';
import { inSpan } from '../../ports/tracing.js';

/** RFC 9068 media type of JWT access tokens: stops an ID token or other JWT being replayed as one. */
const ACCESS_TOKEN_TYP = 'at+jwt';

/** Clock skew and rounding allowed on `iat` and on a token's lifetime. */
const CLAIM_SLACK_SECONDS = 60;

/**
 * Tokens without `aud` were issued by versions before RFC 9068 audiences. They are
 * accepted when issued before this process started, or this soon after it (processes
 * of the older version still issuing during a rolling deploy): so an upgrade logs no
 * client out, and once the last of them has expired (the TTL) every token needs `aud`.
 */
const UNAUDIENCED_TOKENS_GRACE_SECONDS = 600;

export interface KeyringOptions {
  /** The issuer; a function because it may be known only once the server listens. */
  readonly issuer: () => string;
  /** The `aud` every access token carries and must carry to be accepted (RFC 9068 §4). */
  readonly audience: () => string;
  /** Retired keys stay published this long: the longest an access token they signed can live. */
  readonly accessTokenTtlSeconds: number;
  readonly cacheSeconds?: number;
  readonly minReloadIntervalMs?: number;
  /** The algorithm of keys made from now on (COREGATE_SIGNING_ALG); published keys keep their own. */
  readonly signingAlg?: SigningAlg;
  readonly metrics?: SigningMetrics;
  /** Work done in the background (destroying expired keys) failed: for the log. */
  readonly onBackgroundError?: (error: unknown) => void;
}

/** A published key as verification needs it: the key and the one algorithm it verifies. */
interface VerificationKey {
  readonly key: CryptoKey;
  readonly alg: SigningAlg;
}

interface LoadedKeys {
  readonly activeKid: string;
  readonly activeAlg: SigningAlg;
  /** Which custody signs with the active key (`file`, `pkcs11`), for metrics and logs. */
  readonly custody: string;
  /** Signs with the active key, held ready between loads: signing is the token endpoint's hot path. */
  readonly sign: JwsSign;
  /** The encoded protected header of tokens signed with the active key. */
  readonly encodedHeader: string;
  readonly verificationKeys: ReadonlyMap<string, VerificationKey>;
  readonly jwks: PublicJwks;
  readonly loadedAt: number;
  /** {@link JoseKeyring.generation} when the read began. */
  readonly generation: number;
}

/** Verified tokens remembered; the least recently used is forgotten first. */
const VERIFIED_CACHE_ENTRIES = 10_000;
/** The one key of the key cache: all published keys are loaded together. */
const KEYS = 'keys';

/** What a verification is made with: the time, and the deadline of the request that asked (should the keys be read). */
interface Verification {
  readonly now: Date;
  readonly deadline: DatabaseDeadline | undefined;
}

/** A token whose signature was verified, and the key that verified it (a revoked key takes its tokens with it). */
interface Verified {
  readonly claims: AccessTokenClaims;
  readonly kid: string;
}

export class JoseKeyring implements TokenSigner, TokenVerifier {
  /**
   * The published keys (the JWKS, the verification keys and the active signing key),
   * re-read after `cacheSeconds` (0: on every call, still one load for concurrent callers).
   * A reload that fails leaves the keys held as they were, for the rest of their lifetime.
   */
  private readonly loaded: LoadingCache<LoadedKeys, DatabaseDeadline | undefined>;
  /**
   * Verified tokens by their text, without TTL: each carries its own `exp`, checked
   * on every use. Concurrent requests with the same new token share one verification.
   */
  private readonly verified: LoadingCache<Verified, Verification>;
  private readonly minReloadIntervalMs: number;
  /** Moved on by every announced change of the keys ({@link forgetAll}). */
  private generation = 0;
  /** Tokens without `aud` issued later than this are refused ({@link UNAUDIENCED_TOKENS_GRACE_SECONDS}). */
  private readonly unaudiencedIssuedBy: number;
  private readonly signingAlg: SigningAlg;
  /** One sweep of expired keys at a time ({@link destroyExpiredKeys}). */
  private sweeping: Promise<readonly string[]> | undefined;
  /** The kids published at the last load: one gone since then sets off a sweep. */
  private lastPublished = new Set<string>();

  /**
   * `custodies`: the first makes new keys; any of them signs with an active key it holds (an
   * installation moving its keys to an HSM still signs with the sealed key until the rotation).
   */
  constructor(
    private readonly store: SigningKeyStore,
    private readonly custodies: readonly [SigningKeyCustody, ...SigningKeyCustody[]],
    private readonly clock: Clock,
    private readonly options: KeyringOptions,
  ) {
    this.signingAlg = options.signingAlg ?? 'EdDSA';
    this.minReloadIntervalMs = options.minReloadIntervalMs ?? 1000;
    this.unaudiencedIssuedBy = Math.floor(clock.now().getTime() / 1000) + UNAUDIENCED_TOKENS_GRACE_SECONDS;
    // A rotation drops the keys while a load may be under way: that load answers its
    // callers, but the next call loads again and sees the rotation.
    this.loaded = new LoadingCache((_key, deadline) => this.load(deadline), {
      clock,
      ttlSeconds: options.cacheSeconds ?? 30,
      maxEntries: 1,
    });
    this.verified = new LoadingCache((token, verification) => this.verifySignedToken(token, verification), {
      clock,
      maxEntries: VERIFIED_CACHE_ENTRIES,
    });
  }

  /**
   * Creates the first signing key if the database has none (safe when processes race). An
   * active key that the configured custody does not hold (an installation moving its keys to
   * an HSM, or back) is rotated, so that keys of the configured store sign from now on.
   */
  async ensureActiveKey(): Promise<void> {
    await this.createFirstKey();
    const active = (await this.store.listPublished(this.clock.now())).find((key) => key.retiredAt === null);
    if (active && !this.custodies[0].holds(active.privateSealed)) await this.rotate();
    this.loaded.forget(KEYS);
    // Keys that expired while no process was running.
    this.sweepInBackground();
  }

  private async createFirstKey(): Promise<void> {
    const published = await this.store.listPublished(this.clock.now());
    if (published.some((key) => key.retiredAt === null)) return;
    const key = await this.generate();
    try {
      await this.store.activate(key, { retireActive: false, publishUntil: this.clock.now() });
    } catch (error) {
      if (!(error instanceof ActiveKeyConflict)) throw error;
      // Another process's first key won: this one was never published.
      await this.custodies[0].destroy(key.kid);
    }
  }

  /**
   * Destroys the private parts of keys retired and out of the JWKS (their last token has
   * expired, or they were revoked), where the custody keeps them apart from the database
   * (an HSM token). Runs at start, after each rotation and when a load finds a key gone from the
   * JWKS; one sweep at a time.
   */
  destroyExpiredKeys(): Promise<readonly string[]> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweep(): Promise<readonly string[]> {
    const custody = this.custodies[0];
    const held = await custody.heldKids();
    const expired = await this.store.expiredAmong(held, this.clock.now());
    for (const kid of expired) await custody.destroy(kid);
    return expired;
  }

  private sweepInBackground(): void {
    this.destroyExpiredKeys().catch((error: unknown) => this.options.onBackgroundError?.(error));
  }

  /** Signs a fixed input with the active key: `/readyz` checks that the custody still signs. */
  async checkSigning(): Promise<void> {
    await (await this.keys()).sign(Buffer.from('coregate readiness'));
  }

  /** Publishes a new active key; the old one stays in the JWKS until its tokens have expired. */
  async rotate(): Promise<{ kid: string; previousKeysPublishedUntil: Date }> {
    const key = await this.generate();
    const publishUntil = new Date(key.createdAt.getTime() + this.options.accessTokenTtlSeconds * 1000 + 60_000);
    await this.store.activate(key, { retireActive: true, publishUntil });
    this.loaded.forget(KEYS);
    this.sweepInBackground();
    return { kid: key.kid, previousKeysPublishedUntil: publishUntil };
  }

  /**
   * `keys revoke KID`, for a key that leaked: it leaves the JWKS now and the tokens it signed
   * stop verifying at once in this process (its verified-token cache is emptied too); other
   * processes drop it as soon as the change feed announces it, or else when they reload their
   * keys (the key cache time) — a token they verified before is checked against the keys
   * they hold on every use. Revoking the active key rotates first, so that tokens can still
   * be issued.
   */
  async revoke(kid: string): Promise<{ kid: string; rotatedTo: string | undefined } | undefined> {
    const published = await this.store.listPublished(this.clock.now());
    const key = published.find((candidate) => candidate.kid === kid);
    if (!key) return undefined;
    const rotatedTo = key.retiredAt === null ? (await this.rotate()).kid : undefined;
    await this.store.unpublish(kid, this.clock.now());
    this.loaded.forget(KEYS);
    this.verified.forgetAll();
    return { kid, rotatedTo };
  }

  /**
   * The keys changed (announced by the change feed): the next use reads them again (see
   * {@link keys}), so a revoked key's tokens are refused from then on. The keys held are
   * not dropped: while the database cannot answer they serve out their lifetime, as they
   * would without the change feed.
   */
  forgetAll(): void {
    this.generation += 1;
  }

  /**
   * A compact JWS (RFC 7515) signed by the custody directly (node:crypto, or the HSM), its
   * header encoded once per key, rather than jose's `SignJWT`: jose signs through WebCrypto,
   * whose Ed25519 signature costs nearly twice as much of the CPU, and encodes the header
   * again for every token: far more of a whole token request than a library's way may cost
   * here; the figures are in docs/benchmarks.md (the token target). The tokens are the
   * same bytes; verification stays with jose.
   */
  sign(claims: AccessTokenClaims, deadline?: DatabaseDeadline): Promise<string> {
    // Traced as a step of the token request; the span holds nothing of the token.
    return inSpan('token sign', { childOnly: true }, async () => {
      const keys = await this.keys(false, deadline);
      const signingInput = `${keys.encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      const signature = await this.timedSign(keys, Buffer.from(signingInput));
      return `${signingInput}.${signature.toString('base64url')}`;
    });
  }

  private async timedSign(keys: LoadedKeys, input: Buffer): Promise<Buffer> {
    const started = performance.now();
    try {
      const signature = await keys.sign(input);
      this.options.metrics?.signed(keys.custody, keys.activeAlg, 'ok', (performance.now() - started) / 1000);
      return signature;
    } catch (error) {
      this.options.metrics?.signed(keys.custody, keys.activeAlg, 'error', (performance.now() - started) / 1000);
      throw error;
    }
  }

  async jwks(): Promise<PublicJwks> {
    return (await this.keys()).jwks;
  }

  /** When each published key was made, stopped signing, and leaves the JWKS (`keys list`, the console). */
  async keyDates(): Promise<{ kid: string; createdAt: Date; retiredAt: Date | null; publishUntil: Date | null }[]> {
    const published = await this.store.listPublished(this.clock.now());
    return published.map(({ kid, createdAt, retiredAt, publishUntil }) => ({
      kid,
      createdAt,
      retiredAt,
      publishUntil,
    }));
  }

  /** The kid of the key that signs new tokens (`coregate keys list` marks it). */
  async activeKid(): Promise<string> {
    return (await this.keys()).activeKid;
  }

  async verify(token: string, now: Date, deadline?: DatabaseDeadline): Promise<AccessTokenClaims> {
    // A signature verifies the same way every time: a token verified once needs only
    // its lifetime checked again. An Ed25519 verification costs more than a whole
    // proxied request, and platforms send the same token for up to an hour.
    // A token that fails verification is not cached (the rejection reaches every caller sharing it).
    const { claims, kid } = (await this.verified.get(token, { context: { now, deadline } }))!;
    if (claims.exp <= Math.floor(now.getTime() / 1000)) {
      this.verified.forget(token);
      throw new InvalidAccessToken('ERR_JWT_EXPIRED');
    }
    // Its key revoked since (in this process or another): the token goes with it.
    if (!(await this.keys(false, deadline)).verificationKeys.has(kid)) {
      this.verified.forget(token);
      throw new InvalidAccessToken('unknown kid');
    }
    return claims;
  }

  private async verifySignedToken(token: string, { now, deadline }: Verification): Promise<Verified> {
    let kid = '';
    const resolveKey = async (header: JWTHeaderParameters): Promise<CryptoKey> => {
      // Each key verifies its own algorithm only (RFC 8725 §3.1).
      if (!header.kid) throw new InvalidAccessToken('no kid in header');
      kid = header.kid;
      let keys = await this.keys(false, deadline);
      if (
        !keys.verificationKeys.has(header.kid) &&
        this.clock.now().getTime() - keys.loadedAt >= this.minReloadIntervalMs
      ) {
        keys = await this.keys(true, deadline);
      }
      const key = keys.verificationKeys.get(header.kid);
      if (!key) throw new InvalidAccessToken('unknown kid');
      if (header.alg !== key.alg) throw new InvalidAccessToken("alg is not the key's");
      return key.key;
    };
    try {
      const { payload } = await jwtVerify(token, resolveKey, {
        issuer: this.options.issuer(),
        algorithms: [...SIGNING_ALGS],
        typ: ACCESS_TOKEN_TYP,
        currentDate: now,
        requiredClaims: ['iss', 'sub', 'exp', 'iat', 'jti', 'scope', 'client_id'],
      });
      if (
        payload['token_use'] !== 'access' ||
        typeof payload['scope'] !== 'string' ||
        typeof payload['client_id'] !== 'string'
      ) {
        throw new InvalidAccessToken('not an access token');
      }
      const claims = payload as unknown as AccessTokenClaims;
      const insane = this.insaneClaim(claims, now);
      if (insane) throw new InvalidAccessToken(`implausible claims: ${insane}`);
      const audience = this.audienceProblem(payload.aud, claims.iat);
      if (audience === 'another audience') throw new AccessTokenForAnotherAudience(this.options.audience());
      if (audience) throw new InvalidAccessToken(audience);
      return { claims, kid };
    } catch (error) {
      if (error instanceof InvalidAccessToken) throw error;
      if (error instanceof joseErrors.JOSEError) throw new InvalidAccessToken(error.code);
      throw error;
    }
  }

  /**
   * Limits on claims even a good signature must respect: coregate never issues a
   * token living longer than its TTL, dated in the future, for another subject than
   * its client, or for a client id it could not have made. A token breaking them was
   * signed by something other than the token endpoint (a leaked key, a bug): refused.
   */
  private insaneClaim(claims: AccessTokenClaims, now: Date): string | undefined {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (!Number.isInteger(claims.iat) || !Number.isInteger(claims.exp)) return 'iat/exp not whole seconds';
    if (claims.exp - claims.iat > this.options.accessTokenTtlSeconds + CLAIM_SLACK_SECONDS)
      return 'lifetime over the configured TTL';
    if (claims.iat > nowSeconds + CLAIM_SLACK_SECONDS) return 'iat in the future';
    if (claims.sub !== claims.client_id) return 'sub is not client_id';
    if (!isWellFormedClientId(claims.client_id)) return 'malformed client_id';
    return undefined;
  }

  /**
   * RFC 9068 §4: the token must name this gateway in `aud` (a string or a list). A token
   * without `aud` is one issued before audiences existed: see {@link UNAUDIENCED_TOKENS_GRACE_SECONDS}.
   */
  private audienceProblem(aud: unknown, iat: number): 'no aud' | 'another audience' | undefined {
    if (aud === undefined) return iat <= this.unaudiencedIssuedBy ? undefined : 'no aud';
    const audiences = Array.isArray(aud) ? aud : [aud];
    return audiences.includes(this.options.audience()) ? undefined : 'another audience';
  }

  /** `deadline`: the calling request's time for the database, should the keys be read (a failed read's wait counts too). */
  private async keys(forceReload = false, deadline?: DatabaseDeadline): Promise<LoadedKeys> {
    const keys = (await this.loaded.get(KEYS, { reload: forceReload, context: deadline }))!;
    if (keys.generation === this.generation) return keys;
    // Read before the last announced change: read again. While the database cannot answer,
    // the keys held serve out their lifetime, as they would without the change feed.
    return (await this.loaded.get(KEYS, { reload: true, context: deadline }).catch(() => undefined)) ?? keys;
  }

  private async load(deadline: DatabaseDeadline | undefined): Promise<LoadedKeys> {
    const generation = this.generation;
    let published = await this.store.listPublished(this.clock.now(), deadline);
    if (!published.some((key) => key.retiredAt === null)) {
      await this.createFirstKey();
      published = await this.store.listPublished(this.clock.now(), deadline);
    }
    const active = published.find((key) => key.retiredAt === null);
    if (!active) throw new Error('no active signing key');
    const verificationKeys = new Map<string, VerificationKey>();
    for (const key of published) {
      const alg = algOf(key);
      verificationKeys.set(key.kid, { key: (await importJWK(key.publicJwk as JWK, alg)) as CryptoKey, alg });
    }
    const activeAlg = algOf(active);
    const custody = this.custodies.find((candidate) => candidate.holds(active.privateSealed));
    // A key this process cannot sign with still leaves the JWKS and verification working.
    const sign: JwsSign = custody
      ? await custody.signer({ kid: active.kid, alg: activeAlg, privatePart: active.privateSealed })
      : () =>
          Promise.reject(
            new KeyCustodyUnavailable(
              `the active signing key ${active.kid} is kept by a key store this process is not configured for (COREGATE_KEY_STORE)`,
            ),
          );
    const loaded: LoadedKeys = {
      activeKid: active.kid,
      activeAlg,
      custody: custody?.name ?? 'none',
      sign,
      encodedHeader: Buffer.from(JSON.stringify({ alg: activeAlg, kid: active.kid, typ: ACCESS_TOKEN_TYP })).toString(
        'base64url',
      ),
      verificationKeys,
      jwks: { keys: published.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: algOf(key), use: 'sig' })) },
      loadedAt: this.clock.now().getTime(),
      generation,
    };
    // A key that left the JWKS since the last load: its private part can go.
    const kids = new Set(published.map((key) => key.kid));
    if ([...this.lastPublished].some((kid) => !kids.has(kid))) this.sweepInBackground();
    this.lastPublished = kids;
    return loaded;
  }

  private async generate(): Promise<StoredSigningKey> {
    const kid = randomUUID();
    const made = await this.custodies[0].generate(kid, this.signingAlg);
    return {
      kid,
      alg: this.signingAlg,
      publicJwk: made.publicJwk,
      privateSealed: made.privatePart,
      createdAt: this.clock.now(),
      retiredAt: null,
      publishUntil: null,
    };
  }
}

/** A stored key's algorithm; rows written before other algorithms existed all say EdDSA. */
function algOf(key: StoredSigningKey): SigningAlg {
  if (!isSigningAlg(key.alg)) throw new Error(`signing key ${key.kid} has an unknown alg ${key.alg}`);
  return key.alg;
}
