/** The signing keys and the token endpoints' use cases. */
import { TokenIssuer } from '../../app/issue-token.js';
import { TokenRevoker } from '../../app/revoke-token.js';
import { JoseKeyring } from '../../adapters/crypto/jose-keyring.js';
import { SqlRefreshTokenStore } from '../../adapters/store/sql-refresh-token-store.js';
import { SqlSigningKeyStore } from '../../adapters/store/sql-signing-key-store.js';
import { IssuerUrl } from '../issuer-url.js';
import type { Basics } from './basics.js';
import type { SealerAndHasher } from './crypto.js';

export interface Tokens {
  readonly issuer: IssuerUrl;
  readonly keyring: JoseKeyring;
  readonly refreshTokens: SqlRefreshTokenStore;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
}

export function buildTokens({ config, database, clock }: Basics, { sealer, hasher }: SealerAndHasher): Tokens {
  const issuer = new IssuerUrl(config.issuer);
  const keyring = new JoseKeyring(new SqlSigningKeyStore(database), sealer, clock, {
    issuer: issuer.get,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
  });
  const refreshTokens = new SqlRefreshTokenStore(database);
  return {
    issuer,
    keyring,
    refreshTokens,
    tokenIssuer: new TokenIssuer(refreshTokens, hasher, keyring, clock, {
      issuer: issuer.get,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    }),
    revoker: new TokenRevoker(refreshTokens, hasher, clock),
  };
}
