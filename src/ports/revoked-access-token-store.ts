import type { DatabaseDeadline } from './database-deadline.js';

/** Access tokens revoked by their client (RFC 7009), by `jti`, kept until each one's own expiry. */
export interface RevokedAccessToken {
  readonly jti: string;
  /** The token's `exp`: after it the token is refused anyway, and the row may go. */
  readonly expiresAt: Date;
}

export interface RevokedAccessTokenStore {
  /** Records the revocation (again is harmless) and prunes rows whose token has expired; `deadline`: the revoking request's (`database-deadline.ts`). */
  revoke(
    token: RevokedAccessToken & { readonly clientId: string },
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<void>;
  /** Every revoked token still alive at `now`. */
  listLive(now: Date): Promise<RevokedAccessToken[]>;
}
