/**
 * Token revocation (RFC 7009): revoking a refresh token revokes its whole chain;
 * revoking an access token makes every process refuse it until its `exp`.
 */
import type { ClientRecord } from '../domain/client.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import type { RefreshTokenStore } from '../ports/refresh-token-store.js';
import type { RevokedAccessTokenStore } from '../ports/revoked-access-token-store.js';
import { InvalidAccessToken, type TokenVerifier } from '../ports/token-signer.js';
import type { RevokedAccessTokens } from './revoked-access-tokens.js';

/** A compact JWS has three dot-separated parts; refresh tokens (`cgr_…`) have none. */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export interface AccessTokenRevocation {
  readonly verifier: TokenVerifier;
  readonly store: RevokedAccessTokenStore;
  /** This process's copy, told at once (the change feed tells the others). */
  readonly revoked: RevokedAccessTokens;
}

export class TokenRevoker {
  constructor(
    private readonly refreshTokens: RefreshTokenStore,
    private readonly hasher: CredentialHasher,
    private readonly clock: Clock,
    private readonly accessTokens: AccessTokenRevocation,
  ) {}

  /**
   * Revokes the token if it is one of `client`'s. Unknown, invalid and expired tokens and
   * other clients' tokens are ignored silently, as RFC 7009 §2.2 asks. `token_type_hint`
   * is not needed: the two kinds of token cannot be mistaken for one another (§2.1 lets
   * the server look further than the hint). `deadline`: the request's time for the database.
   */
  async revoke(client: ClientRecord, token: string, deadline?: DatabaseDeadline): Promise<void> {
    if (COMPACT_JWS.test(token)) return this.revokeAccessToken(client, token, deadline);
    await this.refreshTokens.revokeChainOf(this.hasher.digest(token), client.id, this.clock.now(), deadline);
  }

  private async revokeAccessToken(
    client: ClientRecord,
    token: string,
    deadline: DatabaseDeadline | undefined,
  ): Promise<void> {
    const now = this.clock.now();
    let claims;
    try {
      claims = await this.accessTokens.verifier.verify(token, now, deadline);
    } catch (error) {
      if (error instanceof InvalidAccessToken) return;
      throw error;
    }
    if (claims.client_id !== client.id) return;
    await this.accessTokens.store.revoke(
      { jti: claims.jti, clientId: client.id, expiresAt: new Date(claims.exp * 1000) },
      now,
      deadline,
    );
    this.accessTokens.revoked.remember(claims.jti, claims.exp);
  }
}
