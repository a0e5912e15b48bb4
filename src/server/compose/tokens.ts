/** The signing keys and the token endpoints' use cases, with the revocation of access tokens. */
import { TokenIssuer } from '../../app/issue-token.js';
import { RevokedAccessTokens } from '../../app/revoked-access-tokens.js';
import { TokenRevoker } from '../../app/revoke-token.js';
import { FileKeyCustody } from '../../adapters/crypto/file-key-custody.js';
import { JoseKeyring } from '../../adapters/crypto/jose-keyring.js';
import { Pkcs11KeyCustody } from '../../adapters/crypto/pkcs11/pkcs11-key-custody.js';
import type { Pkcs11Token } from '../../adapters/crypto/pkcs11/pkcs11-token.js';
import type { SigningMetrics } from '../../ports/signing-key-custody.js';
import { SqlRefreshTokenStore } from '../../adapters/store/sql-refresh-token-store.js';
import { SqlRevokedAccessTokenStore } from '../../adapters/store/sql-revoked-access-token-store.js';
import { SqlSigningKeyStore } from '../../adapters/store/sql-signing-key-store.js';
import type { ChangeFeed } from '../../ports/change-feed.js';
import { IssuerUrl } from '../issuer-url.js';
import type { Basics } from './basics.js';
import type { SealerAndHasher } from './crypto.js';

export interface Tokens {
  readonly issuer: IssuerUrl;
  readonly keyring: JoseKeyring;
  readonly refreshTokens: SqlRefreshTokenStore;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  /** Access tokens revoked by their clients (RFC 7009), held in memory for the bearer check. */
  readonly revokedAccessTokens: RevokedAccessTokens;
}

export interface TokenDeps extends SealerAndHasher {
  /** Announces revoked access tokens at once; without it they are read again now and then. */
  readonly changeFeed: ChangeFeed | undefined;
  /** The PKCS#11 token keeping the signing keys (COREGATE_KEY_STORE=pkcs11); `undefined`: the file store. */
  readonly keyToken: Pkcs11Token | undefined;
  readonly signingMetrics: SigningMetrics;
}

export function buildTokens(
  { config, database, clock, logger }: Basics,
  { sealer, hasher, changeFeed, keyToken, signingMetrics }: TokenDeps,
): Tokens {
  const issuer = new IssuerUrl(config.issuer);
  // RFC 9068 §2.2: tokens are for the gateway; by default its URL under the issuer.
  const audience = (): string => config.tokenAudience ?? `${issuer.get()}/core`;
  // The configured store makes new keys; the file store still signs with a sealed active key
  // until the first rotation after a move to the HSM.
  const fileCustody = new FileKeyCustody(sealer);
  const keyring = new JoseKeyring(
    new SqlSigningKeyStore(database),
    keyToken && config.pkcs11
      ? [new Pkcs11KeyCustody(keyToken, config.pkcs11.keyLabelPrefix), fileCustody]
      : [fileCustody],
    clock,
    {
      issuer: issuer.get,
      audience,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      signingAlg: config.signingAlg,
      metrics: signingMetrics,
      onBackgroundError: (error) =>
        logger.warn({ err: error }, 'signing keys: cannot destroy expired keys; retrying at the next load'),
    },
  );
  const refreshTokens = new SqlRefreshTokenStore(database);
  const revokedTokenStore = new SqlRevokedAccessTokenStore(database);
  const revokedAccessTokens = new RevokedAccessTokens(revokedTokenStore, clock, changeFeed);
  return {
    issuer,
    keyring,
    refreshTokens,
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, {
      issuer: issuer.get,
      audience,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    }),
    revoker: new TokenRevoker(refreshTokens, hasher, clock, {
      verifier: keyring,
      store: revokedTokenStore,
      revoked: revokedAccessTokens,
    }),
    revokedAccessTokens,
  };
}
