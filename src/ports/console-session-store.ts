/**
 * Where the operator console keeps its sign-in links and sessions. Both are found by
 * the SHA-256 digest of their token: the store never holds a token a reader could use.
 */
import type { ConsoleLink, ConsoleSession } from '../domain/console-session.js';

export interface ConsoleSessionStore {
  createLink(digest: string, link: { operator: string; expiresAt: Date; createdAt: Date }): Promise<void>;
  /**
   * Marks the link used at `now` and opens the session `sessionDigest` for its operator, in one
   * step that only one caller can win: the link as it was before, or `undefined` when no link has
   * that digest. The session is opened only when the link was unused and unexpired.
   */
  redeemLink(digest: string, sessionDigest: string, now: Date): Promise<ConsoleLink | undefined>;
  findSession(digest: string): Promise<ConsoleSession | undefined>;
  /** Records activity at `now` (the idle limit counts from it). */
  touchSession(digest: string, now: Date): Promise<void>;
  deleteSession(digest: string): Promise<void>;
  /** Deletes links and sessions past every limit at `now`. */
  prune(now: Date): Promise<void>;
}
