/**
 * Changes that alter what client authentication, the bearer check, token
 * verification or the accounts read decide, announced to every process sharing the
 * database as soon as they are committed (docs/behaviour.md#changes-across-processes). Caches
 * drop what a change names at once; while the feed is not live they fall back to their
 * time-bounded behaviour.
 */
import type { AssociationKey } from '../domain/association.js';

/** A row that changed: a client, an institution or a signing key (its kid). */
export interface RowChange {
  readonly kind: 'client' | 'institution' | 'signing_key';
  readonly id: string;
}

/**
 * The feed became live (changes may have been missed before: whatever a cache holds
 * must be read again), or stopped being live (caches fall back to their lifetimes).
 */
interface FeedStateChange {
  readonly kind: 'feed';
  readonly live: boolean;
  /** Why it stopped being live, for the log. */
  readonly error?: unknown;
}

/** A customer's association removed (deregistered by its platform, or revoked by an operator). */
export interface AssociationRemoved {
  readonly kind: 'association';
  readonly key: AssociationKey;
}

/** An access token revoked (RFC 7009) by its client, in any process: refused until `exp`. */
export interface AccessTokenRevoked {
  readonly kind: 'access_token_revoked';
  readonly jti: string;
  /** The token's own `exp`, in seconds since the epoch: after it, the token is dead anyway. */
  readonly exp: number;
}

export type Change = RowChange | AssociationRemoved | AccessTokenRevoked | FeedStateChange;

export type ChangeListener = (change: Change) => void;

/** Whether changes are being delivered right now; what a cache asks before trusting an entry. */
export interface FeedLiveness {
  readonly live: boolean;
}

export interface ChangeFeed extends FeedLiveness {
  /**
   * Starts listening; resolves once live, or rejects with the first failure (it keeps
   * trying in the background then). Listeners are told of every state change.
   */
  start(): Promise<void>;
  /** Every change committed by any process, this one included; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  close(): Promise<void>;
}
