import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import { ActiveKeyConflict, type SigningKeyStore, type StoredSigningKey } from '../../ports/signing-key-store.js';
import { isUniqueViolation, type Database } from './database.js';

interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  private_sealed: string;
  created_at: Date;
  retired_at: Date | null;
  publish_until: Date | null;
}

function toRecord(row: SigningKeyRow): StoredSigningKey {
  return {
    kid: row.kid,
    alg: row.alg,
    publicJwk: row.public_jwk,
    privateSealed: row.private_sealed,
    createdAt: new Date(row.created_at),
    retiredAt: row.retired_at && new Date(row.retired_at),
    publishUntil: row.publish_until && new Date(row.publish_until),
  };
}

export class SqlSigningKeyStore implements SigningKeyStore {
  constructor(private readonly db: Database) {}

  async listPublished(now: Date, deadline?: DatabaseDeadline): Promise<StoredSigningKey[]> {
    const rows = await this.db.query<SigningKeyRow>(
      `select kid, alg, public_jwk, private_sealed, created_at, retired_at, publish_until
       from signing_keys where retired_at is null or publish_until > $1
       order by created_at desc, kid`,
      [now],
      deadline,
    );
    return rows.map(toRecord);
  }

  async activate(key: StoredSigningKey, options: { retireActive: boolean; publishUntil: Date }): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        if (options.retireActive) {
          await tx.query(`update signing_keys set retired_at = $1, publish_until = $2 where retired_at is null`, [
            key.createdAt,
            options.publishUntil,
          ]);
        }
        await tx.query(
          `insert into signing_keys (kid, alg, public_jwk, private_sealed, created_at) values ($1, $2, $3, $4, $5)`,
          [key.kid, key.alg, JSON.stringify(key.publicJwk), key.privateSealed, key.createdAt],
        );
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ActiveKeyConflict();
      throw error;
    }
  }

  async expiredAmong(kids: readonly string[], now: Date): Promise<string[]> {
    if (kids.length === 0) return [];
    const rows = await this.db.query<{ kid: string }>(
      `select kid from signing_keys where kid = any($1) and retired_at is not null and publish_until <= $2`,
      [kids, now],
    );
    return rows.map((row) => row.kid);
  }

  async unpublish(kid: string, now: Date): Promise<boolean> {
    const rows = await this.db.query<{ kid: string }>(
      `update signing_keys set publish_until = $2 where kid = $1 and retired_at is not null returning kid`,
      [kid, now],
    );
    return rows.length > 0;
  }
}
