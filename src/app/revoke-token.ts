/** Token revocation (RFC 7009) for refresh tokens: revoking one revokes its whole chain. */
import type { ClientRecord } from '../domain/client.js';
import type { Clock } from '../ports/clock.js';
import type { CredentialHasher } from '../ports/credential-hasher.js';
import type { RefreshTokenStore } from '../ports/refresh-token-store.js';

export class TokenRevoker {
  constructor(
    private readonly refreshTokens: RefreshTokenStore,
    private readonly hasher: CredentialHasher,
    private readonly clock: Clock,
  ) {}

  /**
   * Revokes the refresh token if it is one of `client`'s. Unknown tokens and other
   * clients' tokens are ignored silently, as RFC 7009 §2.2 asks.
   */
  async revoke(client: ClientRecord, token: string): Promise<void> {
    await this.refreshTokens.revokeChainOf(this.hasher.digest(token), client.id, this.clock.now());
  }
}
