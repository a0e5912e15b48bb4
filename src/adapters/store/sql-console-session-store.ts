import type { ConsoleLink, ConsoleSession } from '../../domain/console-session.js';
import { SESSION_ABSOLUTE_LIMIT_MS, SESSION_IDLE_LIMIT_MS } from '../../domain/console-session.js';
import type { ConsoleSessionStore } from '../../ports/console-session-store.js';
import type { Database } from './database.js';

interface LinkRow {
  operator: string;
  expires_at: Date;
  used_at: Date | null;
}

export class SqlConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly db: Database) {}

  async createLink(digest: string, link: { operator: string; expiresAt: Date; createdAt: Date }): Promise<void> {
    await this.db.query(
      `insert into console_links (digest, operator, created_at, expires_at) values ($1, $2, $3, $4)`,
      [digest, link.operator, link.createdAt, link.expiresAt],
    );
  }

  redeemLink(digest: string, sessionDigest: string, now: Date): Promise<ConsoleLink | undefined> {
    return this.db.transaction(async (tx) => {
      // The row lock makes two openings of one link take turns: the second sees it used.
      const [row] = await tx.query<LinkRow>(
        `select operator, expires_at, used_at from console_links where digest = $1 for update`,
        [digest],
      );
      if (!row) return undefined;
      const link: ConsoleLink = {
        operator: row.operator,
        expiresAt: new Date(row.expires_at),
        usedAt: row.used_at === null ? null : new Date(row.used_at),
      };
      if (link.usedAt !== null || now.getTime() >= link.expiresAt.getTime()) return link;
      await tx.query(`update console_links set used_at = $2 where digest = $1`, [digest, now]);
      await tx.query(
        `insert into console_sessions (digest, operator, created_at, last_seen_at) values ($1, $2, $3, $3)`,
        [sessionDigest, link.operator, now],
      );
      return link;
    });
  }

  async findSession(digest: string): Promise<ConsoleSession | undefined> {
    const [row] = await this.db.query<{ operator: string; created_at: Date; last_seen_at: Date }>(
      `select operator, created_at, last_seen_at from console_sessions where digest = $1`,
      [digest],
    );
    if (!row) return undefined;
    return { operator: row.operator, createdAt: new Date(row.created_at), lastSeenAt: new Date(row.last_seen_at) };
  }

  async touchSession(digest: string, now: Date): Promise<void> {
    await this.db.query(`update console_sessions set last_seen_at = $2 where digest = $1 and last_seen_at < $2`, [
      digest,
      now,
    ]);
  }

  async deleteSession(digest: string): Promise<void> {
    await this.db.query(`delete from console_sessions where digest = $1`, [digest]);
  }

  async prune(now: Date): Promise<void> {
    // A used link is kept until it would have expired, so that opening it again says "used".
    await this.db.query(`delete from console_links where expires_at <= $1`, [now]);
    await this.db.query(`delete from console_sessions where created_at <= $1 or last_seen_at <= $2`, [
      new Date(now.getTime() - SESSION_ABSOLUTE_LIMIT_MS),
      new Date(now.getTime() - SESSION_IDLE_LIMIT_MS),
    ]);
  }
}
