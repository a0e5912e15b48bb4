import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { ConsumeResult, RefreshTokenRecord, RefreshTokenStore } from '../../ports/refresh-token-store.js';
import type { Database } from './database.js';

interface RefreshTokenRow {
  digest: string;
  client_id: string;
  chain_id: string;
  scope: string;
  issued_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'digest, client_id, chain_id, scope, issued_at, expires_at, used_at, revoked_at';

function toRecord(row: RefreshTokenRow): RefreshTokenRecord {
  return {
    digest: row.digest,
    clientId: row.client_id,
    chainId: row.chain_id,
    scope: row.scope,
    issuedAt: new Date(row.issued_at),
    expiresAt: new Date(row.expires_at),
  };
}

export class SqlRefreshTokenStore implements RefreshTokenStore {
  constructor(private readonly db: Database) {}

  async insert(token: RefreshTokenRecord, deadline?: DatabaseDeadline): Promise<void> {
    await this.db.query(
      `insert into refresh_tokens (digest, client_id, chain_id, scope, issued_at, expires_at) values ($1, $2, $3, $4, $5, $6)`,
      [token.digest, token.clientId, token.chainId, token.scope, token.issuedAt, token.expiresAt],
      deadline,
    );
  }

  async consume(digest: string, clientId: string, now: Date, deadline?: DatabaseDeadline): Promise<ConsumeResult> {
    return this.db.transaction(async (tx) => {
      // The conditional update is the compare-and-swap: of concurrent callers only
      // one sees the row still unused. A chain with any revoked token is revoked as a
      // whole, including a token written into it after the revocation: when a thief
      // and the client present the same token at once, the winner's new token is
      // inserted only after the loser's replay revoked the chain.
      const consumed = await tx.query<RefreshTokenRow>(
        `update refresh_tokens set used_at = $2
         where digest = $1 and client_id = $3 and used_at is null and revoked_at is null and expires_at > $2
           and not exists (select 1 from refresh_tokens revoked where revoked.chain_id = refresh_tokens.chain_id and revoked.revoked_at is not null)
         returning ${COLUMNS}`,
        [digest, now, clientId],
      );
      if (consumed[0]) return { outcome: 'consumed', token: toRecord(consumed[0]) };
      const existing = await tx.query<RefreshTokenRow>(
        `select ${COLUMNS} from refresh_tokens where digest = $1 and client_id = $2`,
        [digest, clientId],
      );
      const row = existing[0];
      if (!row) return { outcome: 'unknown' };
      if (row.used_at !== null) {
        await tx.query(`update refresh_tokens set revoked_at = $2 where chain_id = $1 and revoked_at is null`, [
          row.chain_id,
          now,
        ]);
        return { outcome: 'replayed', token: toRecord(row) };
      }
      return { outcome: 'dead', token: toRecord(row) };
    }, deadline);
  }

  async revokeChainOf(digest: string, clientId: string, at: Date, deadline?: DatabaseDeadline): Promise<boolean> {
    const rows = await this.db.query<{ chain_id: string }>(
      `update refresh_tokens set revoked_at = $3
       where chain_id = (select chain_id from refresh_tokens where digest = $1 and client_id = $2) and revoked_at is null
       returning chain_id`,
      [digest, clientId, at],
      deadline,
    );
    return rows.length > 0;
  }

  async pruneExpired(now: Date, limit: number): Promise<number> {
    const rows = await this.db.query(
      `delete from refresh_tokens where digest in (
         select t.digest from refresh_tokens t
         where t.expires_at < $1 and not exists (select 1 from refresh_tokens live where live.chain_id = t.chain_id and live.expires_at >= $1)
         order by t.expires_at limit $2)
       returning digest`,
      [now, limit],
    );
    return rows.length;
  }
}
