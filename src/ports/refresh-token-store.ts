/**
 * Persistence of refresh tokens, by digest only. Tokens issued from one another
 * form a chain (a "family"): presenting a used token again revokes the chain.
 * `deadline` on a method: the calling request's time for the database (`database-deadline.ts`).
 */
import type { DatabaseDeadline } from './database-deadline.js';

export interface RefreshTokenRecord {
  readonly digest: string;
  readonly clientId: string;
  readonly chainId: string;
  readonly scope: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

export type ConsumeResult =
  | { readonly outcome: 'consumed'; readonly token: RefreshTokenRecord }
  /** No such token. */
  | { readonly outcome: 'unknown' }
  /** The token exists but cannot be used: expired or revoked. */
  | { readonly outcome: 'dead'; readonly token: RefreshTokenRecord }
  /** The token had been used before: its whole chain is now revoked. */
  | { readonly outcome: 'replayed'; readonly token: RefreshTokenRecord };

export interface RefreshTokenStore {
  insert(token: RefreshTokenRecord, deadline?: DatabaseDeadline): Promise<void>;
  /**
   * Marks the token used, atomically: of several concurrent callers exactly one
   * gets `consumed`. A token that was already used revokes its chain. Another
   * client's token is `unknown` and left untouched, so a thief cannot burn it.
   */
  consume(digest: string, clientId: string, now: Date, deadline?: DatabaseDeadline): Promise<ConsumeResult>;
  /** Revokes the chain of the token with this digest if it belongs to `clientId`; true when it did. */
  revokeChainOf(digest: string, clientId: string, at: Date, deadline?: DatabaseDeadline): Promise<boolean>;
  /**
   * Deletes up to `limit` tokens of chains whose every token expired before `now` (a chain
   * with a live token keeps its used and revoked ones: replaying them must still revoke it).
   * Returns how many were deleted.
   */
  pruneExpired(now: Date, limit: number): Promise<number>;
}
