/**
 * The sync state on PostgreSQL and PGlite alike (migration 18): one row per account naming
 * its generation, one per transaction told with its id and keyed digest. A page's changes
 * are written in one transaction that first moves the generation on with a compare-and-swap,
 * so two syncs with the same cursor cannot both apply theirs. It locks the association first:
 * a deregistration meanwhile either comes before (nothing is written) or deletes it all after.
 */
import type { KeptTransaction } from '../../domain/transaction-sync.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type {
  KeptSyncHead,
  SyncApplied,
  SyncStateChanges,
  SyncStateKey,
  TransactionSyncStore,
} from '../../ports/transaction-sync-store.js';
import type { Database, Queryable } from './database.js';

const KEY = 'institution = $1 and platform = $2 and customer_id = $3 and account_id = $4';

function keyParams(key: SyncStateKey): string[] {
  return [key.institution, key.platform, key.customerId, key.accountId];
}

export class SqlTransactionSyncStore implements TransactionSyncStore {
  constructor(private readonly db: Database) {}

  async head(key: SyncStateKey, deadline?: DatabaseDeadline): Promise<KeptSyncHead | undefined> {
    const states = await this.db.query<{ generation: string | number; window_digest: string | null }>(
      `select generation, window_digest from transaction_sync_states where ${KEY}`,
      keyParams(key),
      deadline,
    );
    const state = states[0];
    return state && { generation: Number(state.generation), windowDigest: state.window_digest };
  }

  async kept(key: SyncStateKey, deadline?: DatabaseDeadline): Promise<ReadonlyMap<string, KeptTransaction>> {
    const params = keyParams(key);
    const rows = await this.db.query<{ transaction_id: string; digest: string; leaves_window_on: string | null }>(
      `select transaction_id, digest, leaves_window_on::text as leaves_window_on from transaction_sync_items where ${KEY}`,
      params,
      deadline,
    );
    const kept = new Map<string, KeptTransaction>();
    for (const row of rows)
      kept.set(row.transaction_id, {
        id: row.transaction_id,
        digest: row.digest,
        leavesWindowOn: row.leaves_window_on,
      });
    return kept;
  }

  apply(
    key: SyncStateKey,
    from: number | 'restart',
    changes: SyncStateChanges,
    windowDigest: string | null,
    now: Date,
    deadline?: DatabaseDeadline,
  ): Promise<SyncApplied> {
    const params = keyParams(key);
    return this.db.transaction(async (tx): Promise<SyncApplied> => {
      // The association, locked against deletion until this commits: a deregistration that
      // came first leaves nothing to write under (no foreign-key failure), one that comes
      // later waits and then deletes what this wrote.
      const association = await tx.query(
        `select 1 from associations where institution = $1 and platform = $2 and customer_id = $3 for key share`,
        params.slice(0, 3),
      );
      if (association.length === 0) return 'unregistered';
      const moved =
        from === 'restart'
          ? await tx.query<{ generation: string | number }>(
              `insert into transaction_sync_states (institution, platform, customer_id, account_id, generation, window_digest, updated_at)
               values ($1, $2, $3, $4, 1, $5, $6)
               on conflict (institution, platform, customer_id, account_id)
               do update set generation = transaction_sync_states.generation + 1,
                 window_digest = excluded.window_digest, updated_at = excluded.updated_at
               returning generation`,
              [...params, windowDigest, now],
            )
          : await tx.query<{ generation: string | number }>(
              `update transaction_sync_states set generation = generation + 1, window_digest = $7, updated_at = $6
               where ${KEY} and generation = $5 returning generation`,
              [...params, from, now, windowDigest],
            );
      if (!moved[0]) return 'moved-on';
      if (from === 'restart') await tx.query(`delete from transaction_sync_items where ${KEY}`, params);
      await writeChanges(tx, params, changes);
      return Number(moved[0].generation);
    }, deadline);
  }
}

async function writeChanges(tx: Queryable, params: string[], changes: SyncStateChanges): Promise<void> {
  if (changes.deletes.length > 0) {
    await tx.query(`delete from transaction_sync_items where ${KEY} and transaction_id = any($5::text[])`, [
      ...params,
      changes.deletes,
    ]);
  }
  if (changes.upserts.length === 0) return;
  await tx.query(
    `insert into transaction_sync_items (institution, platform, customer_id, account_id, transaction_id, digest, leaves_window_on)
     select $1, $2, $3, $4, item.id, item.digest, item.leaves
     from unnest($5::text[], $6::text[], $7::date[]) as item (id, digest, leaves)
     on conflict (institution, platform, customer_id, account_id, transaction_id)
     do update set digest = excluded.digest, leaves_window_on = excluded.leaves_window_on`,
    [
      ...params,
      changes.upserts.map((item) => item.id),
      changes.upserts.map((item) => item.digest),
      changes.upserts.map((item) => item.leavesWindowOn),
    ],
  );
}
