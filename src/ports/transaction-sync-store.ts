/**
 * What incremental sync keeps per platform, customer and account (docs/behaviour.md#transaction-sync):
 * a generation, which a sync cursor names, and the transactions last told, each as an id and a
 * keyed digest. Deleted with the association.
 */
import type { AssociationKey } from '../domain/association.js';
import type { KeptTransaction } from '../domain/transaction-sync.js';
import type { DatabaseDeadline } from './database-deadline.js';

export interface SyncStateKey extends AssociationKey {
  readonly accountId: string;
}

export interface KeptSyncHead {
  readonly generation: number;
  /**
   * A keyed digest of the whole window as the platform was last fully told it (no change left
   * over); null while changes wait. Equal to the current window's: nothing changed.
   */
  readonly windowDigest: string | null;
}

/** What one sync page writes: rows to insert or replace, ids to delete. */
export interface SyncStateChanges {
  readonly upserts: readonly KeptTransaction[];
  readonly deletes: readonly string[];
}

/** The new generation, or why nothing was written. */
export type SyncApplied = number | 'moved-on' | 'unregistered';

export interface TransactionSyncStore {
  /** The kept generation and window digest, or `undefined` when the platform never synced this account (or it was deleted). */
  head(key: SyncStateKey, deadline?: DatabaseDeadline): Promise<KeptSyncHead | undefined>;
  /** The transactions kept, by id. */
  kept(key: SyncStateKey, deadline?: DatabaseDeadline): Promise<ReadonlyMap<string, KeptTransaction>>;
  /**
   * Applies `changes`, sets the window digest (null while changes wait) and moves the
   * generation on by one, when it is still `from`;
   * `'restart'` replaces whatever is kept (a sync without a cursor). Returns the new
   * generation; `'moved-on'` when another sync moved the state on meanwhile, `'unregistered'`
   * when the association is gone (deregistered while the core was read); in both cases
   * nothing is written.
   */
  apply(
    key: SyncStateKey,
    from: number | 'restart',
    changes: SyncStateChanges,
    windowDigest: string | null,
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<SyncApplied>;
}
