import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { RevokedAccessToken, RevokedAccessTokenStore } from '../../ports/revoked-access-token-store.js';
import type { Queryable } from './database.js';

export class SqlRevokedAccessTokenStore implements RevokedAccessTokenStore {
  constructor(private readonly db: Queryable) {}

  async revoke(
    token: RevokedAccessToken & { readonly clientId: string },
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<void> {
    // The insert's trigger announces the jti to every process (migration 10); a second
    // revocation of the same token changes nothing and announces nothing.
    await this.db.query(
      `insert into revoked_access_tokens (jti, client_id, expires_at, revoked_at) values ($1, $2, $3, $4) on conflict (jti) do nothing`,
      [token.jti, token.clientId, token.expiresAt, now],
      deadline,
    );
    await this.db.query(`delete from revoked_access_tokens where expires_at <= $1`, [now], deadline);
  }

  async listLive(now: Date): Promise<RevokedAccessToken[]> {
    const rows = await this.db.query<{ jti: string; expires_at: Date }>(
      `select jti, expires_at from revoked_access_tokens where expires_at > $1`,
      [now],
    );
    return rows.map((row) => ({ jti: row.jti, expiresAt: new Date(row.expires_at) }));
  }
}
