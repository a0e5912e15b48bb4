/**
 * Single-use proof identifiers in the database (migration 12): the primary key makes a
 * second insert of one key fail in whichever process tries it, at once.
 */
import type { Queryable } from '../store/database.js';
import type { DatabaseDeadline } from '../../ports/database-deadline.js';
import type { ReplayGuard } from '../../ports/replay-guard.js';

/** Expired rows are deleted at most this often per process (they are harmless until then). */
const PRUNE_EVERY_MS = 60_000;

export class SqlReplayGuard implements ReplayGuard {
  private lastPruneMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly db: Queryable) {}

  async firstUse(key: string, until: Date, now: Date, deadline?: DatabaseDeadline): Promise<boolean> {
    if (now.getTime() - this.lastPruneMs >= PRUNE_EVERY_MS) {
      this.lastPruneMs = now.getTime();
      await this.db.query('delete from used_proof_ids where expires_at <= $1', [now], deadline);
    }
    // An expired row (not pruned yet) no longer counts: it is taken over.
    const rows = await this.db.query<{ key: string }>(
      `insert into used_proof_ids (key, expires_at) values ($1, $2)
       on conflict (key) do update set expires_at = excluded.expires_at where used_proof_ids.expires_at <= $3
       returning key`,
      [key, until, now],
      deadline,
    );
    return rows.length === 1;
  }

  async close(): Promise<void> {}
}
